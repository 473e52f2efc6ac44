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
import { open } from 'node:fs/promises';
import type SQLite from 'better-sqlite3';
import { shareSync } from '../shared-sync.js';
import type { Db } from './database.js';
import { engineOf } from './engine.js';

/** Runs `work` with synchronous=NORMAL, then restores the connection's level. */
export function withRelaxedSync<T>(sqlite: SQLite.Database, work: () => T): T {
  const previous = level(sqlite);
  if (previous <= 1) return work();
  sqlite.exec(RELAXED);
  try {
    return work();
  } finally {
    sqlite.exec(restore(previous));
  }
}

/** The async form, for a transaction whose statements include awaited Kysely queries. */
export async function withRelaxedSyncAsync<T>(sqlite: SQLite.Database, work: () => Promise<T>): Promise<T> {
  const previous = level(sqlite);
  if (previous > 1) sqlite.exec(RELAXED);
  try {
    return await work();
  } finally {
    if (previous > 1) sqlite.exec(restore(previous));
  }
}

/**
 * Set with `exec`, not better-sqlite3's `pragma()`, which makes a statement object per call (several
 * times the cost, on every engine commit). Never a statement prepared once: SQLite applies
 * `synchronous` when it compiles the pragma, so running a prepared one again changes nothing.
 */
const RELAXED = 'pragma synchronous = NORMAL';
const restore = (previous: number) => `pragma synchronous = ${previous}`;

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

/**
 * A durability barrier for commits made with synchronous=NORMAL: resolves once everything
 * committed before the call survives a power cut, without blocking the event loop. It fdatasyncs
 * the WAL file on libuv's threadpool (the sync a FULL commit would make on the main thread), and
 * concurrent callers share syncs (`shareSync`).
 *
 * Why syncing the WAL suffices: a commit's frames are written to the WAL (the page cache) before
 * the commit returns, and fdatasync flushes the file whichever descriptor wrote it. Frames a
 * checkpoint has already copied into the database file are safe too: SQLite syncs the database
 * file after every checkpoint, before the WAL may be restarted over them.
 *
 * Used where a relaxed commit must become durable before something else is let go (the inbound
 * processor removes a spool file only after its commit passed a barrier).
 */
export function walBarrier(sqlite: SQLite.Database): () => Promise<void> {
  if (sqlite.memory) return () => Promise.resolve();
  const file = sqlite.name;
  const sync = async (path: string) => {
    const handle = await open(path, 'r');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  };
  return shareSync(async () => {
    try {
      await sync(`${file}-wal`);
    } catch (error) {
      // No WAL file (the last connection closed and removed it): everything is in the database file.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await sync(file);
    }
  });
}

/**
 * `walBarrier` on either engine. On PostgreSQL a commit is durable when it returns (the server's
 * `synchronous_commit`, on by default, decides; the group commit has no relaxed mode there), so
 * the barrier has nothing to wait for.
 */
export function commitBarrier(db: Db, sqlite: SQLite.Database): () => Promise<void> {
  return engineOf(db) === 'postgresql' ? () => Promise.resolve() : walBarrier(sqlite);
}
