/**
 * Group commit: writes requested while the store is busy (or within `lingerMs` of the first) share
 * ONE SQLite transaction, so a busy path pays for one COMMIT (one WAL fsync under
 * `synchronous = full`) per batch instead of one per write. A write's promise settles only after
 * that COMMIT: a 202 is never sent for a row that could still be lost.
 *
 * Each write runs in its own savepoint (`commitEach`): one that fails rolls back alone and rejects
 * alone, and the others still commit. A batch holds Kysely's connection lock for its whole
 * duration, so a write must never await anything but the store.
 *
 * Batches run one at a time. Writes that arrive during one wait for it and go in the next, which
 * starts on a later turn of the event loop (`setImmediate`): a queue that keeps filling never holds
 * the loop for more than one batch at a time.
 *
 * `durability: 'relaxed'` commits with synchronous=NORMAL (`withRelaxedSyncAsync`): better-sqlite3
 * commits on the main thread, and a FULL commit blocks everything else for an fsync. Use it only
 * where a power cut may roll the batch back without loss: the caller either keeps its own durable
 * copy until a `walBarrier` has passed (the inbound processor and its spool), or redoes the work
 * when it finds it undone (scan verdicts: an attachment left `pending` is scanned again).
 *
 * Used by the send path (acceptance), the inbound processor and the attachment scanner.
 *
 * On PostgreSQL the batch is one transaction too, each write in a savepoint of its own (Kysely's
 * controlled transaction); `durability` does not apply (the server's synchronous_commit decides).
 */
import type SQLite from 'better-sqlite3';
import type { Db } from './database.js';
import { withRelaxedSyncAsync } from './durability.js';
import { engineOf } from './engine.js';
import { commitEach, type ItemOutcome } from './savepoints.js';

export interface GroupCommitOptions {
  /** Writes per transaction; bounds how long one COMMIT makes the first write wait. */
  readonly maxBatch?: number;
  /**
   * How long the first write of a batch waits for company (0, the default: until the current
   * phase of the event loop ends). A full batch does not wait.
   */
  readonly lingerMs?: number;
  /** Runs after each committed batch (e.g. one `events.notify()` for all of it). */
  readonly afterCommit?: () => void;
  /** `configured` (default): `storage.synchronous`; `relaxed`: synchronous=NORMAL (see above). */
  readonly durability?: 'configured' | 'relaxed';
}

interface Pending<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/** Returns `commit(item)`, which resolves with `write`'s result once its batch has committed. */
export function createGroupCommit<T, R>(
  store: { readonly db: Db; readonly sqlite: SQLite.Database },
  write: (trx: Db, item: T) => Promise<R>,
  options: GroupCommitOptions = {},
): (item: T) => Promise<R> {
  const { db, sqlite } = store;
  const maxBatch = options.maxBatch ?? 64;
  const lingerMs = options.lingerMs ?? 0;
  const durably = <V>(work: () => Promise<V>) =>
    options.durability === 'relaxed' ? withRelaxedSyncAsync(sqlite, work) : work();
  let queue: Pending<T, R>[] = [];
  let flushing = false;
  /** What is scheduled to start the next batch, if anything. */
  let waiting: 'nothing' | 'linger' | 'turn' = 'nothing';
  let timer: NodeJS.Timeout | undefined;

  const nextTurn = () => {
    clearTimeout(timer);
    waiting = 'turn';
    setImmediate(() => void flush());
  };

  const postgres = engineOf(db) === 'postgresql';
  /** One transaction for the batch; returns how each entry is to be settled once it commits. */
  async function commitBatch(batch: readonly Pending<T, R>[]): Promise<(() => void)[]> {
    const outcomes = postgres
      ? await commitEachOnPostgres(db, batch, (trx, entry) => write(trx, entry.item))
      : await db
          .connection()
          .execute((conn) => durably(() => commitEach(sqlite, batch, (entry) => write(conn, entry.item))));
    return batch.map((entry, i) => {
      const outcome = outcomes[i] as ItemOutcome<R>;
      return outcome.ok ? () => entry.resolve(outcome.value) : () => entry.reject(outcome.error);
    });
  }

  async function flush(): Promise<void> {
    waiting = 'nothing';
    flushing = true;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    try {
      const settle = await commitBatch(batch);
      options.afterCommit?.();
      for (const done of settle) done();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      flushing = false;
      if (queue.length > 0) nextTurn();
    }
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // A running batch starts the next one when it is done.
      if (flushing) return;
      if (waiting === 'nothing') {
        if (lingerMs > 0) {
          waiting = 'linger';
          timer = setTimeout(() => void flush(), lingerMs);
          timer.unref();
        } else {
          nextTurn();
        }
      } else if (waiting === 'linger' && queue.length >= maxBatch) {
        nextTurn();
      }
    });
}

/** `commitEach` on PostgreSQL: one transaction, a savepoint per item. */
async function commitEachOnPostgres<I, R>(
  db: Db,
  items: readonly I[],
  write: (trx: Db, item: I) => Promise<R>,
): Promise<ItemOutcome<R>[]> {
  const outcomes: ItemOutcome<R>[] = [];
  const trx = await db.startTransaction().execute();
  try {
    for (const item of items) {
      const inner = await trx.savepoint('item').execute();
      try {
        const value = await write(inner, item);
        await inner.releaseSavepoint('item').execute();
        outcomes.push({ ok: true, value });
      } catch (error) {
        await inner.rollbackToSavepoint('item').execute();
        outcomes.push({ ok: false, error });
      }
    }
    await trx.commit().execute();
  } catch (error) {
    await trx
      .rollback()
      .execute()
      .catch(() => {});
    throw error;
  }
  return outcomes;
}

/** Listeners (webhook fan-out, delivery wake-up) hear of commits at most this often by default. */
const NOTIFY_EVERY_MS = 25;

/**
 * `notify` at most once per `everyMs`, never dropping the last call: under load every listener
 * pass (each its own transaction) then covers many commits instead of one.
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
