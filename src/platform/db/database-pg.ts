/**
 * Opens the PostgreSQL store (`[storage] engine = "postgresql"`): a `pg` pool behind Kysely's
 * PostgresDialect. int8 and numeric values come back as numbers, as SQLite hands them (times are
 * integer ms, far below 2^53; counts and sums are small), so one code path reads both engines.
 * The password comes from `password_file`, the URL or PGPASSWORD, and is never logged: `where`
 * names the database with the password cut out.
 */
import { readFileSync } from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { parseNumbers } from './pg-numbers.js';
import { PreparingClient } from './pg-prepared.js';
import type { Database } from './tables.js';

/** What a PostgreSQL store needs: the URL, where the password is, how many connections. */
export interface PostgresSettings {
  readonly url: string;
  readonly password_file: string;
  readonly pool_size: number;
}

/** The URL as it may be shown: without its password. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

/** The pool's connection settings from `settings`; the password file's first line wins over the URL's. */
export function poolConfig(settings: PostgresSettings, max = settings.pool_size): pg.PoolConfig {
  parseNumbers();
  const config: pg.PoolConfig = {
    connectionString: settings.url,
    max,
    // A node must notice a dead database rather than hang: connecting and idle limits.
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'posthorn',
  };
  if (settings.password_file !== '') {
    const password = readFileSync(settings.password_file, 'utf8').split(/\r?\n/)[0] ?? '';
    config.password = password;
  }
  return config;
}

export interface PostgresHandle {
  readonly db: Kysely<Database>;
  readonly pool: pg.Pool;
}

export function openPostgres(settings: PostgresSettings): PostgresHandle {
  // Statements sent again are prepared once per connection (pg-prepared.ts).
  const pool = new pg.Pool({ ...poolConfig(settings), Client: PreparingClient });
  // An idle client losing its connection (the server restarting) must not crash the process: the
  // pool drops it and the next query connects anew.
  pool.on('error', () => {});
  // Nor may a client in use (checked out, between the queries of a transaction), which the pool
  // no longer listens to: its error is the next query's, and the pool discards it on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool };
}
