/**
 * Contract tests of a storage port run the same test on both engines: a migrated store of each
 * (SQLite in a temporary directory, PostgreSQL in a fresh database of the scripts/peers server),
 * closed and removed when the test ends.
 *
 * @example
 *   for (const engine of ENGINES)
 *     test(`${engine}: a claim leases due jobs`, async (t) => {
 *       const store = await migratedStore(t, engine);
 *     });
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import {
  type Db,
  type Engine,
  openPostgresStore,
  openStore,
  type Store,
} from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { freshDatabase } from './postgres.js';

export const ENGINES: readonly Engine[] = ['sqlite', 'postgresql'];

/** An empty, migrated store on `engine`, closed after the test; `url` names the PostgreSQL database. */
export async function migratedStore(
  t: ExecutionContext,
  engine: Engine,
  options: { url?: string; migrate?: boolean } = {},
): Promise<Store & { readonly url?: string }> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-port-'));
    const store = openStore(dir, { synchronous: 'normal' });
    t.teardown(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    if (options.migrate !== false) await migrateToLatest(store.db);
    return store;
  }
  const url = options.url ?? (await freshDatabase(t, { migrated: options.migrate !== false })).url;
  const store = openPostgresStore({ url, password_file: '', pool_size: 4 });
  t.teardown(() => store.close());
  if (options.migrate !== false) await migrateToLatest(store.db);
  return Object.assign(store, { url });
}

/** The organization `org_1` and its active project (`prj_1` unless named), created at `at`. */
export async function seedProject(db: Db, at: number, projectId = 'prj_1'): Promise<void> {
  await db
    .insertInto('organizations')
    .values({ id: 'org_1', name: 'Org', name_key: 'org', created_at: at })
    .execute();
  await db
    .insertInto('projects')
    .values({
      id: projectId,
      organization_id: 'org_1',
      name: 'P',
      status: 'active',
      created_at: at,
      updated_at: at,
    })
    .execute();
}
