/**
 * Commits that need not wait for the disk, for writes a power cut may roll back without loss: the
 * delivery engine's bookkeeping (below) and the analytics projection (derived from the event log,
 * its cursor rolling back with it).
 *
 * The delivery engine's own writes: acceptance (a 202) is made durable by the
 * configured `storage.synchronous`; the engine's writes (leases, lane assignments, outcomes and
 * their events) are committed with synchronous=NORMAL: in WAL mode they survive a crash of the
 * process at once and a power loss from the next fsync'd commit or checkpoint on. On the hot path
 * a FULL commit would block the event loop for an fsync (several milliseconds) per batch.
 *
 * Why that is safe: the engine delivers at least once. An outcome lost to a power cut leaves its
 * job leased; the lease runs out after the restart and the job is tried again (a duplicate, never
 * a loss). A lost lease only lets a job be claimed again, which a restarted engine would do anyway.
 * Postfix makes the same trade: it fsyncs a message on receipt, not its delivery status.
 *
 * Must be called while holding Kysely's connection lock and outside any transaction (SQLite refuses
 * to change the safety level inside one).
 */
import type SQLite from 'better-sqlite3';

/** Runs `work` with synchronous=NORMAL, then restores the connection's level. */
export function withRelaxedSync<T>(sqlite: SQLite.Database, work: () => T): T {
  const previous = level(sqlite);
  if (previous <= 1) return work();
  sqlite.pragma('synchronous = NORMAL');
  try {
    return work();
  } finally {
    sqlite.pragma(`synchronous = ${previous}`);
  }
}

/** The async form, for a transaction whose statements include awaited Kysely queries. */
export async function withRelaxedSyncAsync<T>(sqlite: SQLite.Database, work: () => Promise<T>): Promise<T> {
  const previous = level(sqlite);
  if (previous > 1) sqlite.pragma('synchronous = NORMAL');
  try {
    return await work();
  } finally {
    if (previous > 1) sqlite.pragma(`synchronous = ${previous}`);
  }
}

const levels = new WeakMap<SQLite.Database, number>();

/** The connection's configured level, read once (it is set at open and never changed for good). */
function level(sqlite: SQLite.Database): number {
  let known = levels.get(sqlite);
  if (known === undefined) {
    known = Number(sqlite.pragma('synchronous', { simple: true }));
    levels.set(sqlite, known);
  }
  return known;
}
