/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a small
 * indexed query. This wraps the better-sqlite3 handle so each distinct SQL text is prepared once
 * and reused. Reuse is safe because Kysely runs one query at a time on its single connection, and
 * SQLite re-compiles a cached statement by itself after a schema change. The cache is bounded
 * (least recently used out) so generated SQL with varying shapes (IN lists) cannot grow it forever.
 */
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const DEFAULT_CAPACITY = 500;

export function withStatementCache(sqlite: SQLite.Database, capacity = DEFAULT_CAPACITY): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached) {
        // Re-insert to mark it most recently used.
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = sqlite.prepare(sql) as unknown as SqliteStatement;
      cache.set(sql, statement);
      if (cache.size > capacity) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      return statement;
    },
  };
}
