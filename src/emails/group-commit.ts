/**
 * Group commit for the send path. Every accepted send (or batch) is one unit of work; units that
 * arrive while the store is busy are written together in ONE SQLite transaction, each inside its
 * own SAVEPOINT, so a failing unit rolls back alone while the others commit. One COMMIT (one WAL
 * fsync under `synchronous = full`) and one `notify()` then serve many requests, which is what lets
 * a durable 202 keep up with a plain insert. A unit's promise settles only after the COMMIT, so a
 * 202 is never sent for a row that could still be lost.
 *
 * Under no load a unit waits only for the current I/O phase to end (setImmediate) and is written
 * alone. It must never hold work across an await on anything but the store: the transaction holds
 * Kysely's connection lock for its whole duration.
 */
import type SQLite from 'better-sqlite3';
import type { Db } from '../platform/db/database.js';

type Work<T> = (trx: Db) => Promise<T>;

interface Unit {
  readonly work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Units per transaction; bounds how long one COMMIT makes the first request wait. */
const MAX_UNITS = 256;
/** Listeners (webhook fan-out, delivery wake-up) hear of commits at most this often. */
const NOTIFY_EVERY_MS = 25;

/**
 * `notify` at most once per NOTIFY_EVERY_MS, never dropping the last call: under load every
 * listener pass (each its own transaction) then covers many commits instead of one.
 */
export function throttled(notify: () => void, everyMs = NOTIFY_EVERY_MS): () => void {
  let last = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    timer = undefined;
    last = performance.now();
    notify();
  };
  return () => {
    if (timer) return;
    const wait = last + everyMs - performance.now();
    if (wait <= 0) fire();
    else timer = setTimeout(fire, wait);
  };
}

export function createGroupCommit(db: Db, sqlite: SQLite.Database, onCommitted: () => void) {
  const committed = throttled(onCommitted);
  let queue: Unit[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    flushing = true;
    const units = queue.slice(0, MAX_UNITS);
    queue = queue.slice(units.length);
    const settle: Array<() => void> = [];
    try {
      await db.transaction().execute(async (trx) => {
        for (const unit of units) {
          // Raw statements are safe here: the transaction holds Kysely's connection lock.
          sqlite.exec('savepoint unit');
          try {
            const value = await unit.work(trx);
            sqlite.exec('release unit');
            settle.push(() => unit.resolve(value));
          } catch (error) {
            sqlite.exec('rollback to unit');
            sqlite.exec('release unit');
            settle.push(() => unit.reject(error));
          }
        }
      });
      for (const done of settle) done();
      committed();
    } catch (error) {
      for (const unit of units) unit.reject(error);
    } finally {
      flushing = false;
      if (queue.length > 0) setImmediate(flush);
    }
  }

  return {
    /** Runs `work` inside the next group transaction; resolves after that transaction commits. */
    run<T>(work: Work<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (queue.length === 1 && !flushing) setImmediate(flush);
      });
    },
  };
}

export type GroupCommit = ReturnType<typeof createGroupCommit>;
