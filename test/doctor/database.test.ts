/**
 * `posthorn doctor`'s database lines (doctor/database.ts) against a real store of each engine: a
 * migrated database passes, one not migrated warns naming `posthorn migrate`, a PostgreSQL that
 * does not answer fails naming the URL without its password, a database a newer Posthorn
 * migrated fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { sql } from 'kysely';
import { databaseFindings } from '../../src/doctor/database.js';
import type { Config } from '../../src/platform/config/schema.js';
import { migratedStore } from '../helpers/engines.js';
import { freshDatabase } from '../helpers/postgres.js';

function dataDir(t: ExecutionContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-doctor-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const storage = (t: ExecutionContext, over: Partial<Config['storage']>): Config['storage'] =>
  ({
    engine: 'sqlite',
    url: '',
    password_file: '',
    pool_size: 2,
    data_dir: dataDir(t),
    busy_timeout_ms: 5000,
    ...over,
  }) as Config['storage'];

const lines = (check: Awaited<ReturnType<typeof databaseFindings>>) =>
  check.findings.map((f) => `${f.status} ${f.check}: ${f.message}`);

test('postgresql: a migrated database answers with its version and every migration applied', async (t) => {
  const store = await migratedStore(t, 'postgresql');
  const check = await databaseFindings(storage(t, { engine: 'postgresql', url: store.url as string }));
  t.true(check.usable);
  t.deepEqual(
    check.findings.map((f) => [f.status, f.check]),
    [
      ['ok', 'database'],
      ['ok', 'migrations'],
    ],
    lines(check).join('\n'),
  );
  t.regex(check.findings[0]?.message ?? '', /^PostgreSQL \d+(\.\d+)?.* answers at postgres:\/\//);
  t.regex(check.findings[1]?.message ?? '', /all \d+ migrations applied/);
});

test('postgresql: an empty database warns that migrations are to apply, naming posthorn migrate', async (t) => {
  const { url } = await freshDatabase(t);
  const check = await databaseFindings(storage(t, { engine: 'postgresql', url }));
  t.true(check.usable);
  const migrations = check.findings.find((f) => f.check === 'migrations');
  t.is(migrations?.status, 'warn', lines(check).join('\n'));
  t.regex(migrations?.fix ?? '', /posthorn migrate/);
});

test('postgresql: a server that does not answer fails, naming the URL without its password', async (t) => {
  const check = await databaseFindings(
    storage(t, { engine: 'postgresql', url: 'postgres://posthorn:s3cret-pw@127.0.0.1:1/posthorn' }),
  );
  t.false(check.usable);
  t.is(check.findings.length, 1);
  t.is(check.findings[0]?.status, 'fail');
  t.regex(
    check.findings[0]?.message ?? '',
    /does not answer at postgres:\/\/posthorn:\*\*\*@127\.0\.0\.1:1\/posthorn/,
  );
  t.notRegex(JSON.stringify(check), /s3cret-pw/);
});

test('postgresql: a database a newer Posthorn migrated fails', async (t) => {
  const store = await migratedStore(t, 'postgresql');
  await sql`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2030-01-01')`.execute(
    store.db,
  );
  const check = await databaseFindings(storage(t, { engine: 'postgresql', url: store.url as string }));
  t.false(check.usable);
  const migrations = check.findings.find((f) => f.check === 'migrations');
  t.is(migrations?.status, 'fail');
  t.regex(migrations?.message ?? '', /newer Posthorn .*9999-from-the-future/);
});

test('sqlite: no database yet is said, and a migrated one has every migration applied', async (t) => {
  const fresh = await databaseFindings(storage(t, {}));
  t.false(fresh.usable);
  t.regex(fresh.findings[0]?.message ?? '', /no database yet/);

  const store = await migratedStore(t, 'sqlite');
  const dir = path.dirname(store.file);
  const check = await databaseFindings(storage(t, { data_dir: dir }));
  t.true(check.usable);
  t.deepEqual(
    check.findings.map((f) => [f.status, f.check]),
    [['ok', 'migrations']],
    lines(check).join('\n'),
  );
});
