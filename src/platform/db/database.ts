/**
 * Opens the store `[storage]` names: the one SQLite file (the default), or a PostgreSQL database
 * shared by several nodes (database-pg.ts). Only platform/db knows which engine it is on; the code
 * around it asks `store.engine` only to choose a storage port's adapter.
 *
 * SQLite: WAL, foreign keys, a busy timeout, and a Kysely instance over it. The data directory is
 * 0700 and the database files 0600 (file-modes.ts). The raw better-sqlite3 handle is exposed for
 * the few hot paths that prepare statements once (connection-guard.ts says when they may run
 * without Kysely's connection lock); on PostgreSQL those paths use their port's other adapter, and
 * touching `sqlite` throws, naming the path that has none yet.
 */
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type pg from 'pg';
import { startCheckpointer } from './checkpointer.js';
import { exclusive, guarded } from './connection-guard.js';
import { openPostgres, poolConfig, redactedUrl } from './database-pg.js';
import { ensurePrivateDatabase, ensurePrivateDir } from './file-modes.js';
import { type Leadership, localLeadership, postgresLeadership } from './leadership.js';
import { localNotifications, type Notifications, postgresNotifications } from './notifications.js';
import { withStatementCache } from './statement-cache.js';
import type { Database } from './tables.js';
import { type WorkerAccess, workerClientConfig } from './worker-reader.js';

export type Db = Kysely<Database>;
export type Engine = 'sqlite' | 'postgresql';

export interface Store {
  readonly engine: Engine;
  readonly db: Db;
  /** The raw SQLite handle (a storage port's SQLite adapter only); on PostgreSQL every use throws. */
  readonly sqlite: SQLite.Database;
  /** The PostgreSQL pool (LISTEN/NOTIFY, advisory locks); undefined on SQLite. */
  readonly pool: pg.Pool | undefined;
  /** Where the data is: the SQLite file, or the database URL without its password. */
  readonly file: string;
  /** Wake-ups and cache invalidations between the nodes sharing this store (notifications.ts). */
  readonly notifications: Notifications;
  /**
   * How a worker thread opens a read-only connection of its own to this store (worker-reader.ts):
   * plain data, handed over in `workerData`.
   */
  readonly workerAccess: WorkerAccess;
  /** Which node runs each singleton engine (leadership.ts): this one on SQLite, a lock's holder on PostgreSQL. */
  readonly leadership: Leadership;
  /** Runs a trivial query (on `table` when named), throwing when the database cannot answer. */
  ping(table?: 'delivery_jobs'): Promise<void>;
  close(): Promise<void>;
}

export function databaseFile(dataDir: string): string {
  return path.resolve(dataDir, 'posthorn.sqlite');
}

/** The `[storage]` settings a store opens with. */
export interface StorageSettings {
  readonly engine?: Engine;
  readonly url?: string;
  readonly password_file?: string;
  readonly pool_size?: number;
  readonly data_dir: string;
  readonly busy_timeout_ms: number;
  readonly synchronous: 'full' | 'normal';
}

/**
 * The store as `[storage]` configures it. Every command that opens the store (serve, init, migrate,
 * admin, queue) goes through here, so each one commits as durably as the server does.
 *
 * @example
 *   const store = openConfiguredStore(config.storage);
 */
export function openConfiguredStore(storage: StorageSettings, options: { server?: boolean } = {}): Store {
  if (storage.engine === 'postgresql') {
    ensurePrivateDir(storage.data_dir);
    return openPostgresStore({
      url: storage.url ?? '',
      password_file: storage.password_file ?? '',
      pool_size: storage.pool_size ?? 10,
    });
  }
  return openStore(storage.data_dir, {
    busyTimeoutMs: storage.busy_timeout_ms,
    synchronous: storage.synchronous,
    checkpoints: options.server === true ? 'thread' : 'commits',
  });
}

export function openPostgresStore(settings: {
  url: string;
  password_file: string;
  pool_size: number;
}): Store {
  const { db, pool } = openPostgres(settings);
  const client = poolConfig(settings, 1);
  const notifications = postgresNotifications({ client, pool });
  const leadership = postgresLeadership({ client });
  let closed: Promise<void> | undefined;
  return {
    engine: 'postgresql',
    db,
    sqlite: unported(),
    pool,
    file: redactedUrl(settings.url),
    notifications,
    workerAccess: { engine: 'postgresql', client: workerClientConfig(client) },
    leadership,
    async ping(table) {
      await (table === undefined ? sql`select 1` : sql`select 1 from ${sql.table(table)} limit 1`).execute(
        db,
      );
    },
    close() {
      closed ??= Promise.all([leadership.close(), notifications.close()]).then(() => db.destroy());
      return closed;
    },
  };
}

/**
 * What `store.sqlite` is on PostgreSQL: a handle whose every use throws, naming the code that uses
 * it, so that a capability can be built (it keeps the handle for its SQLite adapter) and fails only
 * where it would run SQLite's statements.
 */
function unported(): SQLite.Database {
  const fail = (): never => {
    const caller = new Error().stack?.split('\n')[3]?.trim() ?? 'unknown caller';
    throw new Error(`this code path uses SQLite directly and has no PostgreSQL adapter yet (${caller})`);
  };
  return new Proxy({} as SQLite.Database, {
    // Not a thenable, and inspectable by Node (symbols), so that holding it is harmless.
    get: (_target, property) => (property === 'then' || typeof property === 'symbol' ? undefined : fail()),
    set: fail,
    has: fail,
  });
}

export interface SqliteOptions {
  readonly busyTimeoutMs?: number;
  readonly synchronous?: 'full' | 'normal';
  /**
   * Who copies the WAL into the database: `commits` (default), SQLite itself inside the commit
   * that passes 1,000 pages; `thread`, a worker thread of its own (checkpointer.ts), for the
   * server, whose connection is the event loop's.
   */
  readonly checkpoints?: 'commits' | 'thread';
}

export function openStore(dataDir: string, options: SqliteOptions = {}): Store {
  ensurePrivateDir(dataDir);
  const file = databaseFile(dataDir);
  ensurePrivateDatabase(file);
  const sqlite = new SQLite(file, { timeout: options.busyTimeoutMs ?? 5000 });
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('temp_store = MEMORY');
  // 16 MB of page cache: the hot pages are the queue's and the newest rows'; a miss is a read from
  // the OS's cache. 32 MB held 18 MB more of the process's peak RSS in a broadcast, at the same
  // rate (BENCHMARKS.md, "Broadcast").
  sqlite.pragma('cache_size = -16000');
  const db = new Kysely<Database>({
    dialect: guarded(sqlite, new SqliteDialect({ database: withStatementCache(sqlite) })),
  });
  const checkpointer =
    options.checkpoints === 'thread'
      ? startCheckpointer(sqlite, {
          synchronous: options.synchronous ?? 'full',
          busyTimeoutMs: options.busyTimeoutMs ?? 5000,
          between: (work) => exclusive(db, sqlite, work),
        })
      : undefined;
  let closed = false;
  const notifications = localNotifications();
  return {
    engine: 'sqlite',
    db,
    sqlite,
    pool: undefined,
    file,
    notifications,
    workerAccess: { engine: 'sqlite', file },
    leadership: localLeadership(),
    async ping(table) {
      sqlite.prepare(table === undefined ? 'select 1' : `select 1 from ${table} limit 1`).get();
    },
    async close() {
      if (closed) return;
      closed = true;
      await notifications.close();
      // The thread's connection first: the last connection to close checkpoints and removes the WAL.
      await checkpointer?.stop();
      await db.destroy();
      // Kysely closes the handle only if it ever ran a query.
      if (sqlite.open) sqlite.close();
    },
  };
}
