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
import type { ExecutionContext } from 'ava';
import pg from 'pg';

export const adminUrl = (): string =>
  process.env.POSTHORN_TEST_PG_URL ??
  `postgres://postgres@127.0.0.1:${process.env.POSTHORN_PG_PORT ?? 54329}/postgres`;

/** Whether the suite's HTTP-level tests run on PostgreSQL in this process. */
export const testEngine = (): 'sqlite' | 'postgresql' =>
  process.env.POSTHORN_TEST_ENGINE === 'postgresql' ? 'postgresql' : 'sqlite';

let counter = 0;

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl(), connectionTimeoutMillis: 5000 });
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

/** A new empty database, dropped when `t` ends (or by the returned `drop`); its URL. */
export async function freshDatabase(
  t: ExecutionContext | null,
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  counter += 1;
  const name = `posthorn_t${process.pid}_${counter}_${Math.random().toString(36).slice(2, 8)}`;
  await admin((client) => client.query(`create database ${name}`));
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
