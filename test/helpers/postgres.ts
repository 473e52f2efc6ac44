/**
 * The real PostgreSQL server the tests use: the cluster `scripts/peers` starts on loopback
 * (POSTHORN_TEST_PG_URL overrides where it is). `freshDatabase` creates an empty database of its
 * own for one test server and drops it after, so tests never see each other's rows.
 * `POSTHORN_TEST_ENGINE=postgresql` makes startPosthorn (./server.ts) run on it.
 *
 * @example
 *   const url = await freshDatabase(t);
 *   const store = openPostgresStore({ url, password_file: '', pool_size: 4 });
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecutionContext } from 'ava';
import pg from 'pg';
import { openPostgresStore } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';

export const adminUrl = (): string =>
  process.env.POSTHORN_TEST_PG_URL ??
  `postgres://postgres@127.0.0.1:${process.env.POSTHORN_PG_PORT ?? 54329}/postgres`;

/** Whether the suite's HTTP-level tests run on PostgreSQL in this process. */
export const testEngine = (): 'sqlite' | 'postgresql' =>
  process.env.POSTHORN_TEST_ENGINE === 'postgresql' ? 'postgresql' : 'sqlite';

let counter = 0;

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 5000 });
  // An error of the connection itself (the server ending it) fails the query in flight; without a
  // listener it would also be an uncaught exception that ends the whole test file.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `no PostgreSQL answers at ${adminUrl()} (${String(error)}); start it with scripts/peers (Debian's postgresql must be installed)`,
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const urlOf = (name: string): string => {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
};

let template: Promise<string> | undefined;

/**
 * The name of a database with every PostgreSQL migration applied, which `freshDatabase` copies
 * (`create database ... template`) instead of each test server migrating an empty one: on a busy
 * host a dozen servers migrating at once took 20 s to start. Named by a hash of the compiled
 * migrations, so a changed migration gets a template of its own; built once under an advisory
 * lock (test processes run side by side) and kept for later runs.
 */
export function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = fileURLToPath(new URL('../../src/platform/db/migrations-pg/', import.meta.url));
    const hash = createHash('sha256');
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .sort())
      hash.update(file).update(readFileSync(path.join(dir, file)));
    const name = `posthorn_template_${hash.digest('hex').slice(0, 16)}`;
    await admin(async (client) => {
      await client.query('select pg_advisory_lock(72910029)');
      try {
        const found = await client.query('select 1 from pg_database where datname = $1', [name]);
        if (found.rowCount !== 0) return;
        const building = `${name}_${process.pid}`;
        await client.query(`drop database if exists ${building}`);
        await client.query(`create database ${building}`);
        const store = openPostgresStore({ url: urlOf(building), password_file: '', pool_size: 1 });
        try {
          await migrateToLatest(store.db);
        } finally {
          await store.close();
        }
        await client.query(`alter database ${building} rename to ${name}`);
      } finally {
        await client.query('select pg_advisory_unlock(72910029)');
      }
    });
    return name;
  })();
  // A failed attempt (the server slow to answer on a busy host) is not kept: the next test tries again.
  template.catch(() => {
    template = undefined;
  });
  return template;
}

/**
 * A new database, dropped when `t` ends (or by the returned `drop`); its URL. Empty, or with
 * `migrated`, a copy of `migratedTemplate()` (every migration applied).
 */
export async function freshDatabase(
  t: ExecutionContext | null,
  options: { readonly migrated?: boolean } = {},
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  counter += 1;
  const name = `posthorn_t${process.pid}_${counter}_${Math.random().toString(36).slice(2, 8)}`;
  const from = options.migrated === true ? ` template ${await migratedTemplate()}` : '';
  await admin((client) => client.query(`create database ${name}${from}`));
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await admin((client) => client.query(`drop database if exists ${name} with (force)`));
  };
  t?.teardown(drop);
  return { url: url.toString(), name, drop };
}

/**
 * Makes the database at `url` unreachable, as a database server gone away would be: new
 * connections refused, open ones ended. Returns how to let connections in again.
 */
export async function cutOff(url: string): Promise<() => Promise<void>> {
  const name = new URL(url).pathname.slice(1);
  await admin(async (client) => {
    await client.query(`alter database ${name} allow_connections false`);
    await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
  });
  return () =>
    admin((client) => client.query(`alter database ${name} allow_connections true`)).then(() => {});
}
