import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { openStore } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { workdir } from '../helpers/cli.js';

test('migrations another process applied after this run read its pending list are skipped, not run twice', async (t) => {
  const w = workdir(t);
  const dataDir = path.join(w.dir, 'data');
  const config = path.join(w.dir, 'config.toml');
  writeFileSync(config, `[storage]\ndata_dir = ${JSON.stringify(dataDir)}\n`);
  const names = Object.keys(migrations).sort();
  const store = openStore(dataDir);
  t.teardown(() => store.close());

  // Two commands started at once on a fresh install: this run has read every migration as pending
  // and applied the first; a real `posthorn migrate` then applies the rest before it takes the lock again.
  let other: ReturnType<typeof w.run> | undefined;
  const applied = await migrateToLatest(store.db, {
    onApplied: () => {
      other ??= w.run(['migrate', '--config', config]);
    },
  });

  t.is(other?.code, 0, other?.stderr);
  t.regex(other?.stdout ?? '', new RegExp(`Applied: ${names.slice(1).join(', ')}\\.`));
  t.deepEqual(applied, names.slice(0, 1));
  const recorded = store.sqlite.prepare('select name from kysely_migration order by name').all() as {
    name: string;
  }[];
  t.deepEqual(
    recorded.map((r) => r.name),
    names,
  );
});
