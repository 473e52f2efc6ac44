/**
 * The WAL checkpointer's thread (checkpointer.ts starts it): a connection of its own to the SQLite
 * file that copies the WAL into the database every `intervalMs`, so that the copy and its fsyncs
 * never run on the event loop inside a commit (the server's connection has `wal_autocheckpoint`
 * off; docs/decisions/storage.md, "WAL checkpoints off the event loop").
 *
 * Each tick runs passive checkpoints (they never wait for and never block a writer) until the WAL
 * is wholly copied or `catchUp` more rounds were spent, then, once the WAL holds `restartBytes`,
 * lets it start over (below), so the file stops growing. If writers never leave a gap for that and the WAL passes `limitBytes`,
 * the tick says so, stops until told to resume, and the owner truncates it on its own connection
 * (checkpointer.ts): a waiting checkpoint here would starve behind a writer that takes the lock
 * back at once.
 */
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { holdingGate } from './write-gate.js';

export interface CheckpointWorkerData {
  readonly file: string;
  readonly intervalMs: number;
  readonly limitBytes: number;
  readonly restartBytes: number;
  readonly catchUp: number;
  readonly synchronous: 'full' | 'normal';
  readonly busyTimeoutMs: number;
  /** The owner's write gate (write-gate.ts), raised while a restart attempt may hold the write lock. */
  readonly gate: Int32Array;
}

/** What the thread tells its owner after a tick that did something (tests and probes read it). */
export interface CheckpointReport {
  readonly type: 'checkpointed';
  /** Frames in the WAL and frames copied into the database after the tick. */
  readonly log: number;
  readonly copied: number;
  /** The WAL is past its bound and could not be started over: the owner truncates it. */
  readonly over: boolean;
}

interface CheckpointRow {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

const data = workerData as CheckpointWorkerData;
const port = parentPort;
if (port === null) throw new Error('checkpoint-worker.ts runs only as a worker thread');

// No busy wait: every checkpoint here tries the locks once (the owner's writes never wait for it).
const connection = new SQLite(data.file, { fileMustExist: true, timeout: 0 });
connection.pragma('wal_autocheckpoint = 0');
connection.pragma(`synchronous = ${data.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
const pageSize = Number(connection.pragma('page_size', { simple: true }));
// Pragmas that act when run (OP_Checkpoint), so preparing them once is right.
const passive = connection.prepare('pragma wal_checkpoint(PASSIVE)');
const restart = connection.prepare('pragma wal_checkpoint(RESTART)');

function run(statement: SQLite.Statement): CheckpointRow | undefined {
  try {
    return statement.get() as CheckpointRow;
  } catch (error) {
    // Another connection is checkpointing (the owner's, closing), or the disk is full or failing
    // (the copy extends the database file): nothing was lost, the next tick tries again.
    const code = (error as { code?: string }).code ?? '';
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) return undefined;
    throw error;
  }
}

/** Copies what passive rounds can; true when the WAL was wholly copied at the last one. */
function catchUp(): CheckpointRow | undefined {
  let row = run(passive);
  for (let round = 0; row !== undefined && row.checkpointed < row.log && round < data.catchUp; round++) {
    if (row.log * pageSize > data.limitBytes) break;
    row = run(passive);
  }
  return row;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Lets the next write start the WAL over. A writer does so only when the WAL was wholly copied
 * before its transaction began; a passive round that ends level with a transaction in progress is
 * not enough (that transaction commits after it, on top). A RESTART checkpoint without waiting
 * (busy_timeout 0) takes the write lock only when no transaction holds it, copies what is left
 * (nothing, or a commit's frames, right after a passive round) and checks that no reader is on
 * the WAL: then no frame can land before the next writer sees the WAL copied. When a writer holds
 * the lock, try again shortly, up to ten times.
 */
function letTheWalStartOver(): void {
  for (let attempt = 0; attempt < 10; attempt++) {
    const row = run(restart);
    if (row !== undefined && row.busy === 0 && row.checkpointed === row.log) return;
    Atomics.wait(pause, 0, 0, 1);
    catchUp();
  }
}

let lastLog = -1;
let lastCopied = -1;

/** Set while the owner truncates the WAL (the checkpoint lock is then the owner's to take). */
let paused = false;

/** The WAL file's size: it shrinks only when truncated, so past the bound it was never started over since. */
function walFileSize(): number {
  try {
    return statSync(`${data.file}-wal`).size;
  } catch {
    return 0;
  }
}

function tick(): void {
  if (paused) return;
  // Past the bound: one passive copy (so the owner has less to do) and straight to the owner.
  const row = walFileSize() > data.limitBytes ? run(passive) : catchUp();
  if (row === undefined) return;
  // Past the bound: a writer never left the WAL a moment to start over.
  const over = Math.max(row.log * pageSize, walFileSize()) > data.limitBytes;
  // Only past `restartBytes`: an attempt that meets a commit copies it with the write lock held,
  // and the event loop's next transaction waits for that copy's fsyncs.
  // The gate holds the owner's new transactions back (asynchronously) meanwhile, so that the attempt
  // finds the lock free and the event loop never sleeps in SQLite's busy handler waiting for it.
  if (!over && row.log * pageSize >= data.restartBytes && row.checkpointed === row.log)
    holdingGate(data.gate, letTheWalStartOver);
  if (over || row.log !== lastLog || row.checkpointed !== lastCopied) {
    lastLog = row.log;
    lastCopied = row.checkpointed;
    port?.postMessage({
      type: 'checkpointed',
      log: row.log,
      copied: row.checkpointed,
      over,
    } satisfies CheckpointReport);
  }
  paused = over;
}

let timer: NodeJS.Timeout | undefined = setInterval(tick, data.intervalMs);
port.postMessage({ type: 'ready' });

port.on('message', (message: { type: string }) => {
  if (message.type === 'resume') paused = false;
  if (message.type !== 'stop' || timer === undefined) return;
  clearInterval(timer);
  timer = undefined;
  // A last copy, so the owner's close (which checkpoints too) finds little left to do.
  run(passive);
  connection.close();
  port.close();
});
