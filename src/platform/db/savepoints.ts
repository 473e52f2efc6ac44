/**
 * One transaction for a batch of independent writes, each in its own savepoint: a write that
 * throws rolls back alone and the others still commit. The outcome of each write is returned in
 * order, to be acted on only once the whole batch has committed (the commit itself may still fail,
 * in which case this throws and nothing was written).
 *
 * Must run while holding the connection (Kysely's `db.connection().execute`), outside any
 * transaction; `BEGIN IMMEDIATE` takes the write lock at once.
 */
import type SQLite from 'better-sqlite3';

export type ItemOutcome<R> =
  | { readonly ok: true; readonly value: R }
  | { readonly ok: false; readonly error: unknown };

export async function commitEach<T, R>(
  sqlite: SQLite.Database,
  items: readonly T[],
  write: (item: T) => Promise<R>,
): Promise<ItemOutcome<R>[]> {
  const outcomes: ItemOutcome<R>[] = [];
  sqlite.exec('begin immediate');
  try {
    for (const item of items) {
      sqlite.exec('savepoint item');
      try {
        const value = await write(item);
        sqlite.exec('release item');
        outcomes.push({ ok: true, value });
      } catch (error) {
        sqlite.exec('rollback to item');
        sqlite.exec('release item');
        outcomes.push({ ok: false, error });
      }
    }
    sqlite.exec('commit');
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('rollback');
    throw error;
  }
  return outcomes;
}
