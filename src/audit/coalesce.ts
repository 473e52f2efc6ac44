/**
 * Audit records that an outsider can cause at will (failed sign-ins, refused API keys, access
 * denied) are bounded, so that a flood cannot fill the store: for a minute after a record, its
 * repeats (organization, actor, address, action, target and details alike) add to its
 * `details.count` instead of appending, and an organization takes at most
 * `MAX_RECORDS_PER_MINUTE` such records a minute; past that, one `audit.records_suppressed`
 * record counts the rest. Counts are kept in memory and written before the log is read, every few
 * seconds (background.ts) and at shutdown.
 */
import type { Insertable } from 'kysely';
import type { AuditLogTable } from '../platform/db/tables.js';
import type { AuditStore } from './store.js';

export const MAX_RECORDS_PER_MINUTE = 100;
const MINUTE_MS = 60_000;

type Row = Insertable<AuditLogTable> & { id: string; details: string; created_at: number };

interface Open {
  readonly id: string;
  readonly org: string;
  readonly details: Record<string, unknown>;
  readonly startedAt: number;
  count: number;
  written: number;
  lastAt: number;
}

export function createCoalescer(store: AuditStore) {
  /** Records of the last minute by what makes them equal. */
  const open = new Map<string, Open>();
  /** Per organization ('' for none): when its minute started and how many records it made. */
  const made = new Map<string, { since: number; count: number }>();

  const writeCount = async (entry: Open): Promise<void> => {
    if (entry.count === entry.written) return;
    const count = entry.count;
    entry.written = count;
    await store.updateDetails(
      entry.id,
      JSON.stringify({ ...entry.details, count, last_at: new Date(entry.lastAt).toISOString() }),
    );
  };

  const start = async (key: string, row: Row, org: string, now: number): Promise<void> => {
    const details = { ...(JSON.parse(row.details) as Record<string, unknown>), count: 1 };
    open.set(key, { id: row.id, org, details, startedAt: now, count: 1, written: 1, lastAt: now });
    await store.insert({ ...row, details: JSON.stringify(details) });
  };

  /** Counts against an equal record of the last minute, or starts one; false when there is none. */
  const repeat = async (key: string, now: number): Promise<boolean> => {
    const seen = open.get(key);
    if (!seen) return false;
    if (now - seen.startedAt < MINUTE_MS) {
      seen.count += 1;
      seen.lastAt = now;
      return true;
    }
    open.delete(key);
    await writeCount(seen);
    return false;
  };

  /** Appends `row`, or counts it against an equal record of the last minute. */
  const add = async (row: Row, now: number): Promise<void> => {
    const org = row.organization_id ?? '';
    const key = JSON.stringify([
      org,
      row.actor,
      row.actor_kind,
      row.ip_address,
      row.action,
      row.target,
      row.details,
    ]);
    if (await repeat(key, now)) return;
    let quota = made.get(org);
    if (!quota || now - quota.since >= MINUTE_MS) {
      quota = { since: now, count: 0 };
      made.set(org, quota);
    }
    if (quota.count < MAX_RECORDS_PER_MINUTE) {
      quota.count += 1;
      return start(key, row, org, now);
    }
    const suppressedKey = JSON.stringify([org, 'audit.records_suppressed']);
    if (await repeat(suppressedKey, now)) return;
    return start(
      suppressedKey,
      {
        id: row.id,
        organization_id: row.organization_id ?? null,
        project_id: null,
        actor: 'system',
        actor_kind: 'system',
        auth_method: null,
        ip_address: null,
        user_agent: null,
        action: 'audit.records_suppressed',
        target: null,
        details: JSON.stringify({
          reason: `more than ${MAX_RECORDS_PER_MINUTE} failed sign-ins and refused requests in a minute`,
        }),
        created_at: now,
      },
      org,
      now,
    );
  };

  return {
    add,
    /**
     * Writes the counts that grew since they were last written, and forgets the records and
     * quotas whose minute is over.
     */
    async flush(now = Date.now()): Promise<void> {
      for (const [key, entry] of open) {
        if (now - entry.startedAt >= MINUTE_MS) open.delete(key);
        await writeCount(entry);
      }
      for (const [org, quota] of made) if (now - quota.since >= MINUTE_MS) made.delete(org);
    },
  };
}

export type Coalescer = ReturnType<typeof createCoalescer>;
