/**
 * Which engine a Kysely instance runs on, for the few places in platform/db that speak each
 * engine's own SQL (the migrator's locking, the storage ports' adapter choice).
 */
import { PostgresAdapter } from 'kysely';
import type { Engine } from './database.js';

export function engineOf(db: { getExecutor(): { readonly adapter: unknown } }): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgresql' : 'sqlite';
}
