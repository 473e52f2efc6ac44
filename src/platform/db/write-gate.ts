/**
 * The write gate: a flag the WAL checkpointer's thread (checkpoint-worker.ts) raises while it
 * holds, or is about to take, SQLite's write lock to let the WAL start over, so that the event
 * loop's writers wait for it asynchronously instead of inside SQLite's busy handler.
 *
 * A `BEGIN IMMEDIATE` that meets the thread's lock waits in the busy handler, which sleeps the
 * whole thread (the event loop) in steps of 1, 2, 5, 10 ms...: every request in flight waited with
 * it, about once a second under a stream of tracking hits (BENCHMARKS.md, "Tracking hits"). With
 * the gate, the server's connection lends itself to a query or a transaction only once the flag is
 * down (connection-guard.ts), and the requests are answered meanwhile. The flag lives in shared
 * memory: reading it is one atomic load, and the thread wakes the waiters when it lowers it.
 *
 * It is an optimisation only: a writer that checked the flag just before it rose still meets the
 * lock, and waits in the busy handler as before; a wait here is bounded (`MAX_WAIT_MS`) for the
 * same reason, and SQLite's locks stay what keeps the data right.
 */
import type SQLite from 'better-sqlite3';

/**
 * Far longer than a restart attempt takes (a few ms; its retries, tens under a loaded disk); past
 * it the writer goes on to SQLite's lock and its busy timeout, as without the gate.
 */
const MAX_WAIT_MS = 1000;

const gates = new WeakMap<SQLite.Database, Int32Array>();

/** `Atomics.waitAsync` (Node 16+; the project's TypeScript lib predates its types). */
const { waitAsync } = Atomics as unknown as {
  waitAsync(
    array: Int32Array,
    index: number,
    value: number,
    timeoutMs: number,
  ): { async: false; value: string } | { async: true; value: Promise<string> };
};

/** The gate of `sqlite` (made on first use), to be shared with the checkpointer's thread. */
export function writeGate(sqlite: SQLite.Database): Int32Array {
  let gate = gates.get(sqlite);
  if (gate === undefined) {
    gate = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    gates.set(sqlite, gate);
  }
  return gate;
}

/** Whether a write on `sqlite` may begin now without meeting the checkpointer's lock. */
export function writable(sqlite: SQLite.Database): boolean {
  const gate = gates.get(sqlite);
  return gate === undefined || Atomics.load(gate, 0) === 0;
}

/**
 * Undefined when a write on `sqlite` may begin now; else a promise that resolves once the thread
 * lowers the gate (or after `MAX_WAIT_MS`).
 *
 * @example
 *   const wait = whenWritable(sqlite);
 *   if (wait) await wait;
 */
export function whenWritable(sqlite: SQLite.Database): Promise<unknown> | undefined {
  const gate = gates.get(sqlite);
  if (gate === undefined) return undefined;
  const waiting = waitAsync(gate, 0, 1, MAX_WAIT_MS);
  return waiting.async ? waiting.value : undefined;
}

/** Lowers the gate and wakes the waiters (also the owner's, should the thread end while it holds it). */
export function lowerGate(gate: Int32Array): void {
  Atomics.store(gate, 0, 0);
  Atomics.notify(gate, 0);
}

/** The thread's side: raised while `work` runs, then lowered and the waiters woken. */
export function holdingGate<T>(gate: Int32Array, work: () => T): T {
  Atomics.store(gate, 0, 1);
  try {
    return work();
  } finally {
    lowerGate(gate);
  }
}
