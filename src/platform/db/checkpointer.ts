/**
 * WAL checkpoints on a thread of their own (checkpoint-worker.ts), for the server's SQLite store.
 *
 * SQLite's default runs a checkpoint inside whichever commit grows the WAL past 1,000 pages: the
 * committing connection copies the WAL into the database and fsyncs both files, and on the server
 * that connection is the event loop's (4 to 12 ms, about twice a second under a stream of
 * tracking hits; BENCHMARKS.md, "Tracking hits"). With the checkpointer, the server's connection
 * never checkpoints (`wal_autocheckpoint = 0`) and a worker thread does it on a timer, with a
 * bound on the WAL's size; docs/decisions/storage.md, "WAL checkpoints off the event loop".
 *
 * The bound: when the thread reports the WAL past `limitBytes` and could not start it over (a
 * writer that never pauses), the owner's connection runs a TRUNCATE checkpoint itself, between
 * two of its transactions: the event loop waits for it, as it waited for every checkpoint before.
 *
 * If the thread fails, the connection goes back to SQLite's own checkpoints (nothing is lost
 * either way: a checkpoint only copies committed pages).
 */
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { CheckpointReport, CheckpointWorkerData } from './checkpoint-worker.js';
import { lowerGate, writeGate } from './write-gate.js';

// Relative to the compiled file: dist/src/platform/db/checkpointer.js loads checkpoint-worker.js.
const WORKER_FILE = new URL('./checkpoint-worker.js', import.meta.url);

/** SQLite's own threshold (pages), restored if the thread fails. */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

export interface CheckpointerOptions {
  /** How often the thread copies the WAL (ms). */
  readonly intervalMs?: number;
  /** The WAL's bound: past it, a checkpoint waits for writers and empties the file (bytes). */
  readonly limitBytes?: number;
  /** The WAL's size from which the thread lets it start over (bytes). */
  readonly restartBytes?: number;
  /** Passive rounds a tick may add to catch up with writers, so that the WAL can start over. */
  readonly catchUp?: number;
  readonly synchronous: 'full' | 'normal';
  readonly busyTimeoutMs: number;
  /**
   * Runs synchronous work on the connection between two of its transactions (connection-guard.ts's
   * `exclusive`); by default at once when no transaction is open, else at the next report.
   */
  readonly between?: (work: () => void) => Promise<void>;
  /** Told after each tick that changed something, and after each truncation (tests). */
  readonly onCheckpoint?: (report: CheckpointReport & { readonly truncated: boolean }) => void;
}

export interface Checkpointer {
  /** Resolves once the thread has its connection and ticks (tests). */
  readonly ready: Promise<void>;
  /** Stops the thread after its tick in progress and a last passive checkpoint. */
  stop(): Promise<void>;
}

/** 100 ms (SQLite checkpointed about as often, every 1,000 pages, under tracking hits) and 64 MB: see the decision. */
export const CHECKPOINT_INTERVAL_MS = 100;
export const WAL_LIMIT_BYTES = 64 * 1024 * 1024;
/** 16 MB: the loop waited for fewer attempts' copies than when every tick tried (BENCHMARKS.md, "Tracking hits"). */
export const WAL_RESTART_BYTES = 16 * 1024 * 1024;

/**
 * Turns `sqlite`'s automatic checkpoints off and starts the thread that does them instead.
 *
 * @example
 *   const checkpointer = startCheckpointer(sqlite, { synchronous: 'full', busyTimeoutMs: 5000 });
 *   // ...
 *   await checkpointer.stop(); // before sqlite.close()
 */
export function startCheckpointer(sqlite: SQLite.Database, options: CheckpointerOptions): Checkpointer {
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(WORKER_FILE, {
    workerData: {
      file: sqlite.name,
      intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
      limitBytes: options.limitBytes ?? WAL_LIMIT_BYTES,
      restartBytes: options.restartBytes ?? WAL_RESTART_BYTES,
      catchUp: options.catchUp ?? 4,
      synchronous: options.synchronous,
      busyTimeoutMs: options.busyTimeoutMs,
      gate: writeGate(sqlite),
    } satisfies CheckpointWorkerData,
  });
  // The store's close stops it; a store never closed must not keep the process alive.
  worker.unref();
  let failed = false;
  // A thread ended (or terminated) during a restart attempt must not leave the gate up.
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      lowerGate(writeGate(sqlite));
      resolve();
    }),
  );
  const between =
    options.between ??
    (async (work: () => void) => {
      if (!sqlite.inTransaction) work();
    });
  let truncating = false;
  let started: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    started = resolve;
  });
  worker.on('message', (report: CheckpointReport | { type: 'ready' }) => {
    if (report.type === 'ready') return started();
    options.onCheckpoint?.({ ...report, truncated: false });
    if (!report.over || truncating || !sqlite.open) return;
    truncating = true;
    between(() => {
      // Waits (the busy timeout) for a checkpoint of the thread's and for readers in other threads.
      const row = sqlite.pragma('wal_checkpoint(TRUNCATE)', { simple: false }) as {
        busy: number;
        log: number;
        checkpointed: number;
      }[];
      const [result] = row;
      if (result !== undefined)
        options.onCheckpoint?.({
          type: 'checkpointed',
          log: result.log,
          copied: result.checkpointed,
          over: false,
          truncated: true,
        });
    })
      .catch((error: unknown) => process.emitWarning(`a WAL truncation failed: ${error}`))
      .finally(() => {
        truncating = false;
        worker.postMessage({ type: 'resume' });
      });
  });
  worker.on('error', (error) => {
    failed = true;
    lowerGate(writeGate(sqlite));
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
    process.emitWarning(`the WAL checkpointer thread failed; SQLite checkpoints in commits again: ${error}`);
  });
  let stopping: Promise<void> | undefined;
  return {
    ready,
    stop() {
      stopping ??= (async () => {
        if (!failed) worker.postMessage({ type: 'stop' });
        const timeout = setTimeout(() => void worker.terminate(), 10_000);
        await exited;
        clearTimeout(timeout);
      })();
      return stopping;
    },
  };
}
