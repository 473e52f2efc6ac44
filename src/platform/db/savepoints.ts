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
import { sql } from 'kysely';
import type { Db } from './database.js';
import { withRelaxedSyncAsync } from './durability.js';
import { engineOf } from './engine.js';

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
    for (const item of items) outcomes.push(await inSavepoint(sqlite, 'item', () => write(item)));
    sqlite.exec('commit');
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('rollback');
    throw error;
  }
  return outcomes;
}

/**
 * Runs `write` in a savepoint nested in the open transaction: when it throws, only its own writes
 * are undone and the error is returned; the transaction goes on. Should SQLite have rolled back
 * the whole transaction itself (an I/O error, a full disk), undoing the savepoint throws instead.
 *
 * @example
 * const added = await inSavepoint(sqlite, 'suppression', () => suppressions.addWithin(trx, input));
 * if (!added.ok) log.error({ err: added.error }, 'the address could not be suppressed');
 */
export async function inSavepoint<R>(
  sqlite: SQLite.Database,
  name: 'item' | 'outcome' | 'suppression',
  write: () => Promise<R>,
): Promise<ItemOutcome<R>> {
  sqlite.exec(`savepoint ${name}`);
  try {
    const value = await write();
    sqlite.exec(`release ${name}`);
    return { ok: true, value };
  } catch (error) {
    sqlite.exec(`rollback to ${name}`);
    sqlite.exec(`release ${name}`);
    return { ok: false, error };
  }
}

/**
 * `inSavepoint` on either engine: on SQLite the savepoint runs on the raw handle `sqlite` (the
 * caller's transaction holds Kysely's connection lock), on PostgreSQL it is sent through `trx`,
 * the transaction itself.
 */
export async function savepointIn<R>(
  trx: Db,
  sqlite: SQLite.Database,
  name: 'item' | 'outcome' | 'suppression',
  write: () => Promise<R>,
): Promise<ItemOutcome<R>> {
  if (engineOf(trx) !== 'postgresql') return inSavepoint(sqlite, name, write);
  await sql.raw(`savepoint ${name}`).execute(trx);
  try {
    const value = await write();
    await sql.raw(`release savepoint ${name}`).execute(trx);
    return { ok: true, value };
  } catch (error) {
    await sql.raw(`rollback to savepoint ${name}`).execute(trx);
    await sql.raw(`release savepoint ${name}`).execute(trx);
    return { ok: false, error };
  }
}

/**
 * One write transaction on either engine, `work` given the executor to write with: on SQLite
 * `BEGIN IMMEDIATE` on the raw handle while holding Kysely's connection (with `relaxed`, committed
 * with synchronous=NORMAL, durability.ts); on PostgreSQL a transaction of the pool's.
 */
export async function writeTransaction<R>(
  db: Db,
  sqlite: SQLite.Database,
  work: (trx: Db) => Promise<R>,
  options: { readonly relaxed?: boolean } = {},
): Promise<R> {
  if (engineOf(db) === 'postgresql') {
    const trx = await db.startTransaction().execute();
    try {
      const result = await work(trx);
      await trx.commit().execute();
      return result;
    } catch (error) {
      await trx
        .rollback()
        .execute()
        .catch(() => {});
      throw error;
    }
  }
  const run = (conn: Db) => async () => {
    sqlite.exec('begin immediate');
    try {
      const result = await work(conn);
      sqlite.exec('commit');
      return result;
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('rollback');
      throw error;
    }
  };
  return db
    .connection()
    .execute((conn) => (options.relaxed === true ? withRelaxedSyncAsync(sqlite, run(conn)) : run(conn)()));
}
