/**
 * The hot read of every send made with an access token: whether its project holds it. A storage
 * port (DESIGN.md §8) with its SQLite adapter, one statement prepared once on the raw
 * better-sqlite3 handle and run without waiting for Kysely's connection lock, which the send
 * path's group commit holds across its fsync (`scripts/bench oauth`). A policy change still in
 * flight may be seen a moment early; nothing else is read.
 */
import type SQLite from 'better-sqlite3';
import type { ApprovalStore, Policy } from './store.js';

export interface PolicyLookup {
  find(projectId: string): Policy | Promise<Policy>;
}

/** The PostgreSQL adapter: the store's query. */
export function kyselyPolicyLookup(store: Pick<ApprovalStore, 'policy'>): PolicyLookup {
  return { find: (projectId) => store.policy(projectId) };
}

export function sqlitePolicyLookup(sqlite: SQLite.Database): PolicyLookup {
  let statement:
    | SQLite.Statement<[string], { require_approval: number; trusted_clients: string }>
    | undefined;
  return {
    find(projectId) {
      // Prepared on first use: the table exists only once migrations ran.
      statement ??= sqlite.prepare(
        'select require_approval, trusted_clients from send_approval_policies where project_id = ?',
      );
      const row = statement.get(projectId);
      // No row: the default, approval on and no client trusted.
      return {
        requireApproval: row === undefined || row.require_approval === 1,
        trustedClients: row === undefined ? [] : (JSON.parse(row.trusted_clients) as string[]),
      };
    },
  };
}
