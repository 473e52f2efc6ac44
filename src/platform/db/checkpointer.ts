/**
 * WAL checkpoints on a worker thread. SQLite's automatic checkpoint runs inside the commit that
 * crosses the threshold, on the connection that committed: here the main thread, where copying a
 * few megabytes into the database file and the two fsyncs around it stall every request for tens
 * of milliseconds. A second connection on a worker thread runs passive checkpoints instead, every
 * `intervalMs` (and again at once while frames remain), which never block the writer.
 *
 * The main connection keeps a much higher automatic threshold as a backstop: if the worker falls
 * behind or dies, the WAL still cannot grow without bound. A checkpoint by either connection syncs
 * the WAL before and the database file after copying, so durability is unchanged.
 *
 * Stop it before closing the store, so that the main connection's close, the last one, does the
 * final checkpoint and removes the WAL.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { Logger } from '../log.js';

const WORKER_FILE = fileURLToPath(new URL('./checkpoint-worker.js', import.meta.url));
/** Pages (4 KiB) the WAL may reach before the main connection checkpoints it itself. */
const BACKSTOP_PAGES = 16_384;

export interface CheckpointerOptions {
  readonly intervalMs?: number;
  readonly log: Logger;
}

export interface Checkpointer {
  stop(): Promise<void>;
}

export interface CheckpointWorkerData {
  readonly file: string;
  readonly intervalMs: number;
}

export type CheckpointWorkerMessage = { readonly error: string };

export function startCheckpointer(sqlite: SQLite.Database, options: CheckpointerOptions): Checkpointer {
  if (sqlite.memory) return { stop: async () => undefined };
  const previous = Number(sqlite.pragma('wal_autocheckpoint', { simple: true }));
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const workerData: CheckpointWorkerData = { file: sqlite.name, intervalMs: options.intervalMs ?? 200 };
  const worker = new Worker(WORKER_FILE, { workerData });
  // It never keeps the process alive by itself (a boot that fails after this point still exits).
  worker.unref();
  let stopped = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('message', (message: CheckpointWorkerMessage) => {
    options.log.warn({ err: message.error }, 'background WAL checkpoint failed; will retry');
  });
  worker.on('error', (error) => {
    options.log.error(
      { err: error },
      'the WAL checkpoint thread stopped; the main connection checkpoints instead',
    );
  });
  void exited.then(() => {
    if (!stopped && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${previous}`);
  });
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      worker.ref();
      worker.postMessage('stop');
      await exited;
      if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${previous}`);
    },
  };
}
