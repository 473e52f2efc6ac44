/**
 * A lock for the length of one transaction, by name, for work that must never run on two nodes
 * at once even for a moment (a consumer moving its cursor along the event log): on PostgreSQL a
 * transaction advisory lock, released by the commit or rollback; on SQLite nothing, since its one
 * writer already runs one transaction at a time. Its key space is apart from leadership.ts's
 * session locks, so a leader's own lock never blocks its work.
 *
 * @example
 *   await db.transaction().execute(async (trx) => {
 *     await lockInTransaction(trx, 'analytics');
 *     // read the cursor, work, move the cursor
 *   });
 */
import { sql } from 'kysely';
import type { Db } from './database.js';
import { engineOf } from './engine.js';
import { lockKey } from './leadership.js';

/** The first key of transaction locks by name (leadership.ts takes 7370 for its session locks). */
export const TRANSACTION_LOCK_NAMESPACE = 7371;

/** Waits for the lock `name` within the transaction `trx` (PostgreSQL; nothing on SQLite). */
export async function lockInTransaction(trx: Db, name: string): Promise<void> {
  if (engineOf(trx) !== 'postgresql') return;
  await sql`select pg_advisory_xact_lock(${TRANSACTION_LOCK_NAMESPACE}::int, ${lockKey(name)}::int)`.execute(
    trx,
  );
}
