/**
 * Who holds Kysely's connection, so that synchronous work on the raw better-sqlite3 handle can skip
 * the wait for Kysely's connection lock when nobody does.
 *
 * The store has one connection; Kysely lends it to one query or transaction at a time, through its
 * driver, from acquire to release. A Kysely transaction (or a `db.connection()` callback) may await
 * between its statements, so raw statements must never run while someone holds the connection:
 * they would land in that holder's transaction, or under its relaxed durability. Work that runs
 * synchronously cannot interleave with anything, so when nobody holds the connection and no
 * transaction is open, running it at once is the same as taking the lock and giving it back in
 * the same turn, without the lock's promises (several per call, on every delivery store call).
 *
 * Never for work that awaits: only `exclusive`'s synchronous callback runs without the lock.
 */
import type SQLite from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver } from 'kysely';
import type { Db } from './database.js';
import { whenWritable, writable } from './write-gate.js';

/** Connections lent out by each handle's Kysely driver and not given back yet. */
const lent = new WeakMap<SQLite.Database, { count: number }>();

/**
 * `dialect` (Kysely's SQLite dialect over `sqlite`), counting who holds its connection (see above).
 * Only types come from Kysely here: the render workers load this file (through the delivery
 * store) and never need Kysely itself.
 */
export function guarded(sqlite: SQLite.Database, dialect: Dialect): Dialect {
  const holders = { count: 0 };
  lent.set(sqlite, holders);
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => countingDriver(sqlite, dialect.createDriver(), holders),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

/**
 * Runs synchronous `work` on `sqlite` with the connection to itself, and resolves with its result:
 * at once when nobody holds Kysely's connection (`db`'s, over `sqlite`) and no transaction is open,
 * else once Kysely's lock is its turn.
 *
 * @example
 *   const row = await exclusive(db, sqlite, () => statement.get(id));
 */
export function exclusive<T>(db: Db, sqlite: SQLite.Database, work: () => T): Promise<T> {
  if (lent.get(sqlite)?.count === 0 && !sqlite.inTransaction && writable(sqlite)) {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return db.connection().execute(async () => work());
}

/**
 * The driver, counting connections from the moment it lends one to the moment it gets it back,
 * and lending one only while the WAL checkpointer's thread is not after the write lock
 * (write-gate.ts): waiting for it here lets the event loop answer requests meanwhile.
 */
function countingDriver(sqlite: SQLite.Database, driver: Driver, holders: { count: number }): Driver {
  const counting: Driver = {
    init: (options) => driver.init(options),
    async acquireConnection(options): Promise<DatabaseConnection> {
      const connection = await driver.acquireConnection(options);
      holders.count += 1;
      // Once the connection is ours: a wait for Kysely's lock may have outlasted a look before it.
      const gate = whenWritable(sqlite);
      if (gate !== undefined) await gate;
      return connection;
    },
    async releaseConnection(connection, options): Promise<void> {
      holders.count -= 1;
      await driver.releaseConnection(connection, options);
    },
    // IMMEDIATE, not SQLite's default DEFERRED: a deferred transaction that reads first and then
    // writes asks for the write lock while holding a read snapshot, and SQLite then answers
    // SQLITE_BUSY at once, without the busy timeout, whenever another connection holds that lock
    // (the WAL checkpointer's restart, a CLI command writing beside `serve`). Taken at BEGIN, the
    // lock is waited for like any other. This connection is the process's only writer, so taking
    // it early costs nothing.
    beginTransaction: async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    },
    commitTransaction: (connection) => driver.commitTransaction(connection),
    rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
    destroy: (options) => driver.destroy(options),
  };
  const { savepoint, rollbackToSavepoint, releaseSavepoint } = driver;
  if (savepoint) counting.savepoint = savepoint.bind(driver);
  if (rollbackToSavepoint) counting.rollbackToSavepoint = rollbackToSavepoint.bind(driver);
  if (releaseSavepoint) counting.releaseSavepoint = releaseSavepoint.bind(driver);
  return counting;
}
