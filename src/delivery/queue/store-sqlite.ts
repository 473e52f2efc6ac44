/**
 * The delivery store on SQLite (the port is store.ts): hot statements prepared once on the raw
 * handle (store-statements.ts; the synchronous writes of one outcome, run in the caller's
 * transaction, in store-writes.ts). Every call has the connection to itself (`exclusive`: at once
 * when nobody holds Kysely's connection, else under its lock; or the caller's transaction), so none
 * of them ever lands inside another capability's open transaction; writes commit with relaxed
 * durability (see durability.ts). One node holds every lease: jobs carry no lease token.
 */
import type SQLite from 'better-sqlite3';
import { exclusive } from '../../platform/db/connection-guard.js';
import type { Db } from '../../platform/db/database.js';
import { withRelaxedSync } from '../../platform/db/durability.js';
import type { KeyMode, Traffic } from '../../platform/db/tables.js';
import type { DeliveryStore, JobRelease, VerpTarget } from './store.js';
import { deliveryReports } from './store-reports.js';
import {
  type ClaimedJob,
  inIdOrder,
  type JobLease,
  type MessageRow,
  type RecipientRow,
  type StoredPolicy,
} from './store-rows.js';
import { type JobSqlRow, prepare, type Statements } from './store-statements.js';
import { outcomeWrites } from './store-writes.js';

const toJob = (row: JobSqlRow): ClaimedJob => ({
  id: row.id,
  messageId: row.message_id,
  projectId: row.project_id,
  domain: row.domain,
  traffic: row.traffic,
  mode: row.mode,
  lane: row.lane,
  attempts: row.attempts,
  createdAt: row.created_at,
  lease: null,
});

export function createSqliteDeliveryStore(db: Db, sqlite: SQLite.Database): DeliveryStore {
  let prepared: Statements | undefined;
  // Prepared on first use: the tables exist only once migrations ran.
  const stmt = () => {
    prepared ??= prepare(sqlite);
    return prepared;
  };
  /** Writes with the connection to themselves (`exclusive`), with relaxed durability (durability.ts). */
  const locked = <T>(work: (s: Statements) => T): Promise<T> =>
    exclusive(db, sqlite, () => withRelaxedSync(sqlite, () => work(stmt())));
  /** Reads with the connection to themselves. */
  const reading = <T>(work: (s: Statements) => T): Promise<T> => exclusive(db, sqlite, () => work(stmt()));

  const writes = outcomeWrites(stmt);
  return {
    ...deliveryReports(db),

    claim(
      traffic: Traffic,
      lane: string | null,
      limit: number,
      now: number,
      leaseMs: number,
    ): Promise<ClaimedJob[]> {
      const until = now + leaseMs;
      return locked((s) => s.claim.all(until, until, now, traffic, lane, now, limit).map(toJob));
    },

    release(jobs: readonly JobRelease[], dueAt: number, now: number): Promise<void> {
      if (jobs.length === 0) return Promise.resolve();
      return locked((s) => {
        sqlite
          .transaction(() => {
            for (const job of jobs) s.release.run(job.lane, dueAt, now, job.id);
          })
          .immediate();
      });
    },

    unrouted(
      traffic: Traffic,
      limit: number,
      now: number,
    ): Promise<{ id: string; domain: string; mode: KeyMode }[]> {
      return reading((s) => s.unrouted.all(traffic, now, limit));
    },

    assignLane(jobs: readonly { id: string; lane: string }[]): Promise<void> {
      if (jobs.length === 0) return Promise.resolve();
      return locked((s) => {
        sqlite
          .transaction(() => {
            for (const job of jobs) s.assign.run(job.lane, job.id);
          })
          .immediate();
      });
    },

    queuedLanes(traffic: Traffic): Promise<string[]> {
      return reading((s) => {
        const lanes: string[] = [];
        // Lane names are never empty (config), so '' sorts before every one of them.
        let row = s.nextLane.get(traffic, '');
        while (row !== undefined) {
          lanes.push(row.lane);
          row = s.nextLane.get(traffic, row.lane);
        }
        return lanes;
      });
    },

    unassignLane(traffic: Traffic, lane: string, batch: number, now: number): Promise<number> {
      return locked((s) => s.unassignLane.run(now, traffic, lane, batch).changes);
    },

    renew(jobs: readonly JobLease[], until: number): Promise<void> {
      if (jobs.length === 0) return Promise.resolve();
      return locked((s) => {
        sqlite
          .transaction(() => {
            for (const job of jobs) s.renew.run(until, until, job.id);
          })
          .immediate();
      });
    },

    /** One read under the lock. */
    load(messageId: string): Promise<{ message: MessageRow | undefined; recipients: RecipientRow[] }> {
      return reading((s) => ({
        message: s.message.get(messageId),
        recipients: inIdOrder(s.recipients.all(messageId)),
      }));
    },

    /** Synchronous statements on the connection `trx`'s transaction holds (it holds the lock). */
    batchesOutcomes: false,

    writesIn: () => writes,

    heldLeases: (_trx, jobs) => Promise.resolve(new Set(jobs.map((job) => job.id))),

    verpTarget(kind: 'recipient' | 'job', id: string): Promise<VerpTarget | null> {
      return reading((s) => {
        if (kind === 'recipient') {
          const recipient = s.recipientById.get(id);
          return recipient
            ? { messageId: recipient.message_id, projectId: recipient.project_id, recipients: [recipient] }
            : null;
        }
        const job = s.jobById.get(id);
        if (!job) return null;
        const recipients = inIdOrder(s.recipients.all(job.message_id)).filter((r) => r.domain === job.domain);
        return { messageId: job.message_id, projectId: job.project_id, recipients };
      });
    },

    policy(domain: string): Promise<StoredPolicy | undefined> {
      return reading((s) => {
        const row = s.policy.get(domain);
        if (!row) return undefined;
        return {
          domain: String(row.domain),
          policyId: String(row.policy_id),
          mode: row.mode as StoredPolicy['mode'],
          mx: JSON.parse(String(row.mx)) as string[],
          maxAge: Number(row.max_age),
          fetchedAt: Number(row.fetched_at),
          expiresAt: Number(row.expires_at),
        };
      });
    },

    savePolicy(policy: StoredPolicy): Promise<void> {
      return locked((s) => {
        s.savePolicy.run(
          policy.domain,
          policy.policyId,
          policy.mode,
          JSON.stringify(policy.mx),
          policy.maxAge,
          policy.fetchedAt,
          policy.expiresAt,
        );
      });
    },

    purgeAttemptsBefore(cutoff: number, batch = 5000): Promise<number> {
      return locked((s) => s.purgeAttempts.run(cutoff, batch).changes);
    },

    oldestDue(): Promise<number | null> {
      return reading((s) => {
        const dues = (['transactional', 'marketing'] as const)
          .map((traffic) => s.oldestDue.get(traffic)?.due ?? null)
          .filter((d): d is number => d !== null);
        return dues.length > 0 ? Math.min(...dues) : null;
      });
    },
  };
}
