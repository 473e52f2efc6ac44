/**
 * Group commit: writes requested within a short window (`lingerMs`, or until `maxBatch` are
 * waiting) share one transaction, so a busy listener pays for one fsync per batch instead of one
 * per message (better-sqlite3 commits on the main thread, and with `synchronous = full` each commit
 * waits for the disk, blocking everything else meanwhile). `afterCommit` runs once per batch.
 *
 * When a batch fails, its items are written again one by one, each in its own transaction, so one
 * bad item fails alone and the others still commit.
 */
import type { Db } from '../platform/db/database.js';

interface Pending<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  readonly maxBatch?: number;
  /** How long the first write of a batch waits for company. */
  readonly lingerMs?: number;
  /** Runs after each committed batch (e.g. one `events.notify()` for all of it). */
  readonly afterCommit?: () => void;
}

export function createGroupCommit<T, R>(
  db: Db,
  write: (trx: Db, item: T) => Promise<R>,
  options: GroupCommitOptions = {},
): (item: T) => Promise<R> {
  const maxBatch = options.maxBatch ?? 64;
  const lingerMs = options.lingerMs ?? 0;
  let queue: Pending<T, R>[] = [];
  let scheduled = false;
  let timer: NodeJS.Timeout | undefined;

  const one = (entry: Pending<T, R>) =>
    db
      .transaction()
      .execute((trx) => write(trx, entry.item))
      .then((result) => {
        options.afterCommit?.();
        entry.resolve(result);
      }, entry.reject);

  async function flush(): Promise<void> {
    scheduled = false;
    clearTimeout(timer);
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      let results: R[];
      try {
        results = await db.transaction().execute(async (trx) => {
          const out: R[] = [];
          for (const entry of batch) out.push(await write(trx, entry.item));
          return out;
        });
      } catch (error) {
        if (batch.length === 1) (batch[0] as Pending<T, R>).reject(error);
        else for (const entry of batch) await one(entry);
        continue;
      }
      options.afterCommit?.();
      for (const [i, entry] of batch.entries()) entry.resolve(results[i] as R);
    }
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (queue.length >= maxBatch && scheduled && lingerMs > 0) {
        clearTimeout(timer);
        setImmediate(() => void flush());
      } else if (!scheduled) {
        scheduled = true;
        if (lingerMs > 0) {
          timer = setTimeout(() => void flush(), lingerMs);
          timer.unref();
        } else {
          setImmediate(() => void flush());
        }
      }
    });
}
