/**
 * How the migration tests start: a store opened on a fresh temporary directory (removed after the
 * test) or on `dir`, stepped with Kysely's `Migrator` up to and including `version`, closed after
 * the test. The migrator is returned for the steps that follow.
 *
 * @example
 *   const { store, migrator } = await storeMigratedTo(t, '0015-cancelled-recipients');
 *   store.sqlite.exec('insert into ...');
 *   t.deepEqual(await migrateToLatest(store.db), ['0016-webhook-endpoint-mode', ...]);
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { Migrator } from 'kysely/migration';
import { openStore, type Store } from '../../src/platform/db/database.js';
import { migrations } from '../../src/platform/db/migrations/index.js';

export async function storeMigratedTo(
  t: ExecutionContext,
  version: string,
  dir?: string,
): Promise<{ store: Store; migrator: Migrator }> {
  let dataDir = dir;
  if (dataDir === undefined) {
    const temp = mkdtempSync(path.join(tmpdir(), 'posthorn-migrations-'));
    t.teardown(() => rmSync(temp, { recursive: true, force: true }));
    dataDir = temp;
  }
  const store = openStore(dataDir);
  t.teardown(() => store.close());
  const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } });
  t.is((await migrator.migrateTo(version)).error, undefined);
  return { store, migrator };
}

/**
 * The registered migrations from `first` on, in the order they run: what a store stepped to the
 * migration before `first` applies when migrated to the latest. Derived from the index, so a new
 * migration needs no edit here.
 *
 * @example migrationsFrom('0016-webhook-endpoint-mode') // ['0016-webhook-endpoint-mode', '0017-...', ...]
 */
export function migrationsFrom(first: string): string[] {
  const names = Object.keys(migrations).sort();
  if (!names.includes(first)) throw new Error(`no migration named ${first}`);
  return names.filter((name) => name >= first);
}
