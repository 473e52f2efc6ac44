/**
 * The audit log: who did what to which resource. Capabilities record their administrative actions
 * here; it is append-only and never holds secrets.
 */
import type { Db } from '../platform/db/database.js';
import { newId } from '../platform/ids.js';

export interface AuditEntry {
  readonly actor: string;
  readonly action: string;
  readonly organizationId?: string | null;
  readonly projectId?: string | null;
  readonly target?: string | null;
  readonly details?: Record<string, unknown>;
}

export function createAuditService(db: Db) {
  return {
    async record(entry: AuditEntry, executor: Db = db): Promise<void> {
      const now = Date.now();
      await executor
        .insertInto('audit_log')
        .values({
          id: newId('aud_log', now),
          organization_id: entry.organizationId ?? null,
          project_id: entry.projectId ?? null,
          actor: entry.actor,
          action: entry.action,
          target: entry.target ?? null,
          details: JSON.stringify(entry.details ?? {}),
          created_at: now,
        })
        .execute();
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
