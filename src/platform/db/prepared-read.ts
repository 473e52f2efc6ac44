/**
 * A one-row read by a prepared SQLite statement, for the hot reads of the request path (an API
 * key's lookup, a suppression lookup): a Kysely query costs its builder, its compiler and several
 * promises around the connection lock, several times the read itself (BENCHMARKS.md, "Address
 * validation"). The statement is prepared on first use (the tables exist only after migrations)
 * and runs through `exclusive`, so it never lands inside someone else's open transaction.
 *
 * On PostgreSQL there is no prepared read: `preparedRead` returns undefined and the store's Kysely
 * query is the adapter (DESIGN.md §8).
 *
 * @example
 *   const byHash = preparedRead<[string], ApiKeyRow>(store, 'select * from api_keys where key_hash = ?');
 *   const row = byHash ? await byHash(hash) : await kyselyQuery(hash);
 */
import type SQLite from 'better-sqlite3';
import { exclusive } from './connection-guard.js';
import type { Store } from './database.js';

export type PreparedRead<P extends unknown[], R> = (...params: P) => Promise<R | undefined>;

export function preparedRead<P extends unknown[], R>(
  store: Pick<Store, 'engine' | 'db' | 'sqlite'> | undefined,
  sql: string,
): PreparedRead<P, R> | undefined {
  if (store === undefined || store.engine !== 'sqlite') return undefined;
  const { db, sqlite } = store;
  let statement: SQLite.Statement<P, R> | undefined;
  return (...params: P) =>
    exclusive(db, sqlite, () => {
      statement ??= sqlite.prepare<P, R>(sql);
      return statement.get(...params);
    });
}
