/**
 * Opens the one SQLite file: WAL, foreign keys, a busy timeout, and a Kysely instance over it. The
 * data directory is 0700 and the database files 0600 (file-modes.ts).
 * The raw better-sqlite3 handle is exposed for the few hot paths that prepare statements once
 * (connection-guard.ts says when they may run without Kysely's connection lock).
 */
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { guarded } from './connection-guard.js';
import { ensurePrivateDatabase, ensurePrivateDir } from './file-modes.js';
import { withStatementCache } from './statement-cache.js';
import type { Database } from './tables.js';

export type Db = Kysely<Database>;

export interface Store {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly file: string;
  close(): Promise<void>;
}

export function databaseFile(dataDir: string): string {
  return path.resolve(dataDir, 'posthorn.sqlite');
}

/** The `[storage]` settings a store opens with. */
export interface StorageSettings {
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
export function openConfiguredStore(storage: StorageSettings): Store {
  return openStore(storage.data_dir, {
    busyTimeoutMs: storage.busy_timeout_ms,
    synchronous: storage.synchronous,
  });
}

export function openStore(
  dataDir: string,
  options: { busyTimeoutMs?: number; synchronous?: 'full' | 'normal' } = {},
): Store {
  ensurePrivateDir(dataDir);
  const file = databaseFile(dataDir);
  ensurePrivateDatabase(file);
  const sqlite = new SQLite(file, { timeout: options.busyTimeoutMs ?? 5000 });
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('temp_store = MEMORY');
  sqlite.pragma('cache_size = -32000');
  const db = new Kysely<Database>({
    dialect: guarded(sqlite, new SqliteDialect({ database: withStatementCache(sqlite) })),
  });
  let closed = false;
  return {
    db,
    sqlite,
    file,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
      // Kysely closes the handle only if it ever ran a query.
      if (sqlite.open) sqlite.close();
    },
  };
}
