/**
 * The two engines' schemas stay one: every SQLite table, column and unique key has its PostgreSQL
 * counterpart. A capability that adds a SQLite table or column without its PostgreSQL migration
 * fails here, saying what to add.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { openPostgresStore, openStore } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrations as pgMigrations } from '../../src/platform/db/migrations-pg/index.js';
import { missingOnPostgres, schemaShape } from '../../src/platform/db/schema-shape.js';
import { freshDatabase } from '../helpers/postgres.js';

test('every SQLite table, column and unique key has its PostgreSQL counterpart', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-schema-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const lite = openStore(dir);
  t.teardown(() => lite.close());
  await migrateToLatest(lite.db);

  const { url } = await freshDatabase(t);
  const pg = openPostgresStore({ url, password_file: '', pool_size: 2 });
  t.teardown(() => pg.close());
  await migrateToLatest(pg.db);

  const liteShape = await schemaShape(lite);
  const problems = missingOnPostgres(liteShape, await schemaShape(pg));
  t.true(liteShape.size > 50, 'the SQLite schema was read');
  t.deepEqual(
    problems,
    [],
    `The PostgreSQL schema lacks what SQLite has. Add a PostgreSQL migration in src/platform/db/migrations-pg/ (CONTRIBUTING.md, "A table on both engines"):\n  ${problems.join('\n  ')}`,
  );
});

test('the comparison names a table, a column and a unique key that PostgreSQL lacks', async (t) => {
  const lite = new Map([
    [
      'widgets',
      {
        columns: new Map([
          ['id', { type: 'text' as const, nullable: false }],
          ['size', { type: 'integer' as const, nullable: true }],
        ]),
        uniqueKeys: new Set(['id', 'size']),
      },
    ],
    ['gadgets', { columns: new Map(), uniqueKeys: new Set<string>() }],
  ]);
  const pg = new Map([
    [
      'widgets',
      { columns: new Map([['id', { type: 'text' as const, nullable: false }]]), uniqueKeys: new Set(['id']) },
    ],
  ]);
  t.deepEqual(missingOnPostgres(lite, pg), [
    'column widgets.size exists on SQLite but not on PostgreSQL',
    'unique key widgets(size) exists on SQLite but not on PostgreSQL',
    'table gadgets exists on SQLite but not on PostgreSQL',
  ]);
});

test('migrating PostgreSQL twice at once applies each migration once (advisory lock)', async (t) => {
  const { url } = await freshDatabase(t);
  const a = openPostgresStore({ url, password_file: '', pool_size: 2 });
  const b = openPostgresStore({ url, password_file: '', pool_size: 2 });
  t.teardown(() => Promise.all([a.close(), b.close()]).then(() => {}));
  const [first, second] = await Promise.all([migrateToLatest(a.db), migrateToLatest(b.db)]);
  t.deepEqual([...first, ...second].sort(), Object.keys(pgMigrations).sort());
  t.true(first.length + second.length >= 4, 'every PostgreSQL migration ran');
});
