/**
 * Room `delivery/queue/`, the first stage. The queue is the `delivery_jobs` table: due jobs are
 * claimed with a lease in one statement, and given back, retried or ended with their outcome; with
 * them the message and recipient rows a job carries (store-rows.ts, store-statements.ts,
 * store-writes.ts), when a message became due (due-time.ts) and the status a message takes from its
 * recipients (message-status.ts).
 *
 * It must never decide where mail goes or what a reply means, nor open a network connection; and no
 * code outside it queries these tables.
 *
 * The only file that queries the delivery engine's rows: it claims and releases `delivery_jobs`,
 * reads what a job must send from `messages` and `message_recipients`, writes outcomes back, and
 * keeps `mta_sts_policies`, `delivery_soft_bounces` and `delivery_attempts`.
 *
 * The queue is the table. A claim is ONE statement that picks due jobs and leases them: it sets
 * `locked_until` and moves `due_at` to the same instant, so a claimed job drops out of every
 * claim's range by itself and comes back into it when the lease runs out (a crash loses nothing).
 * Each lane claims its own jobs through the (traffic, lane, due_at) index; jobs with no lane yet
 * are claimed by the router the same way (lane IS NULL).
 *
 * Hot statements are prepared once on the raw handle (store-statements.ts; the row shapes are in
 * store-rows.ts; the synchronous writes of one outcome, run in the caller's transaction, in
 * store-writes.ts). Every call has the connection to itself (`exclusive`: at once when nobody
 * holds Kysely's connection, else under its lock; or the caller's transaction), so none of them
 * ever lands inside another capability's open transaction; writes commit with relaxed durability
 * (see durability.ts).
 */
import type SQLite from 'better-sqlite3';
import { exclusive } from '../../platform/db/connection-guard.js';
import type { Db } from '../../platform/db/database.js';
import { withRelaxedSync } from '../../platform/db/durability.js';
import type { KeyMode, Traffic } from '../../platform/db/tables.js';
import type { ClaimedJob, LaneDepth, MessageRow, RecipientRow, StoredPolicy } from './store-rows.js';
import { type JobSqlRow, prepare, type Statements } from './store-statements.js';
import { outcomeWrites } from './store-writes.js';

export type * from './store-rows.js';

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
});

/**
 * Recipients in ID order (the order they were submitted in: IDs sort by creation), as SQLite's
 * `order by id` would give them: IDs are ASCII, so comparing UTF-16 code units is comparing bytes.
 */
function inIdOrder<R extends { readonly id: string }>(rows: R[]): R[] {
  return rows.length < 2 ? rows : rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * A message's bodies, which only the render workers read (on their own read-only connection), as
 * UTF-8 bytes: read as blobs, a large body is never decoded into a string and encoded back.
 */
export interface MessageContent {
  readonly html: Buffer | null;
  readonly text: Buffer | null;
}

/**
 * The bodies of a message, read by a render worker so that a large body never crosses the event
 * loop. `sqlite` is the worker's own read-only connection (WAL lets it read beside the writer).
 */
export function contentReader(sqlite: SQLite.Database): (messageId: string) => MessageContent | undefined {
  const statement = sqlite.prepare<[string], MessageContent>(
    'select cast(html as blob) as html, cast(text as blob) as text from message_bodies where message_id = ?',
  );
  return (messageId) => statement.get(messageId);
}

export function createDeliveryStore(db: Db, sqlite: SQLite.Database) {
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

  return {
    /**
     * Leases up to `limit` due jobs of one lane (or, with `lane` null, jobs not yet routed) until
     * `now + leaseMs`, oldest due first.
     */
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

    /** Gives jobs back to the queue, due at `dueAt`, remembering their lane. */
    release(jobs: readonly { id: string; lane: string | null }[], dueAt: number, now: number): Promise<void> {
      if (jobs.length === 0) return Promise.resolve();
      return locked((s) => {
        sqlite.transaction(() => {
          for (const job of jobs) s.release.run(job.lane, dueAt, now, job.id);
        })();
      });
    },

    /** Due jobs that have no lane yet, oldest first (the router reads them without leasing them). */
    unrouted(
      traffic: Traffic,
      limit: number,
      now: number,
    ): Promise<{ id: string; domain: string; mode: KeyMode }[]> {
      return reading((s) => s.unrouted.all(traffic, now, limit));
    },

    /** Writes down the lane the router chose; from then on that lane claims the job. */
    assignLane(jobs: readonly { id: string; lane: string }[]): Promise<void> {
      if (jobs.length === 0) return Promise.resolve();
      return locked((s) => {
        sqlite.transaction(() => {
          for (const job of jobs) s.assign.run(job.lane, job.id);
        })();
      });
    },

    /** The lanes that queued jobs of a traffic class are written down for, in name order. */
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

    /**
     * Takes the lane off up to `batch` queued jobs of one lane, so that the router assigns them
     * again; returns how many. A leased job keeps its lease (and its due time, so the router only
     * reads it once the lease has run out).
     */
    unassignLane(traffic: Traffic, lane: string, batch: number, now: number): Promise<number> {
      return locked((s) => s.unassignLane.run(now, traffic, lane, batch).changes);
    },

    /** Extends the lease of jobs still being worked on. */
    renew(ids: readonly string[], until: number): Promise<void> {
      if (ids.length === 0) return Promise.resolve();
      return locked((s) => {
        sqlite.transaction(() => {
          for (const id of ids) s.renew.run(until, until, id);
        })();
      });
    },

    /** The message and all its recipients (one read under the lock). */
    load(messageId: string): Promise<{ message: MessageRow | undefined; recipients: RecipientRow[] }> {
      return reading((s) => ({
        message: s.message.get(messageId),
        recipients: inIdOrder(s.recipients.all(messageId)),
      }));
    },

    /** The writes of one outcome; call inside the caller's transaction (it holds the lock). */
    writes: outcomeWrites(stmt),

    /** The recipient (or the recipients of the job) a VERP address names. */
    verpTarget(kind: 'recipient' | 'job', id: string) {
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

    /** Deletes up to `batch` attempt-log rows older than `cutoff` (retention); returns how many. */
    purgeAttemptsBefore(cutoff: number, batch = 5000): Promise<number> {
      return locked((s) => s.purgeAttempts.run(cutoff, batch).changes);
    },

    /** The earliest due time of each traffic class (index-only, cheap enough for a health probe). */
    oldestDue(): Promise<number | null> {
      return reading((s) => {
        const dues = (['transactional', 'marketing'] as const)
          .map((traffic) => s.oldestDue.get(traffic)?.due ?? null)
          .filter((d): d is number => d !== null);
        return dues.length > 0 ? Math.min(...dues) : null;
      });
    },

    /** Per-lane depth for `posthorn queue stats` (a scan of the queued jobs; not for hot paths). */
    async depth(now: number): Promise<LaneDepth[]> {
      const rows = await db
        .selectFrom('delivery_jobs')
        .select((eb) => [
          'traffic',
          'lane',
          eb.fn.countAll<number>().as('queued'),
          eb.fn.sum<number>(eb.case().when('locked_until', '>', now).then(1).else(0).end()).as('in_flight'),
          eb.fn.sum<number>(eb.case().when('attempts', '>', 0).then(1).else(0).end()).as('deferred'),
          eb.fn.min<number>('created_at').as('oldest'),
        ])
        .where('state', '=', 'queued')
        .groupBy(['traffic', 'lane'])
        .orderBy('traffic')
        .orderBy('lane')
        .execute();
      return rows.map((row) => ({
        traffic: row.traffic,
        lane: row.lane,
        queued: Number(row.queued),
        inFlight: Number(row.in_flight ?? 0),
        deferred: Number(row.deferred ?? 0),
        oldestCreatedAt: row.oldest === null ? null : Number(row.oldest),
      }));
    },

    /**
     * SMTP transactions logged after attempt `afterId`, counted per lane and outcome, and the
     * newest ID read; without `afterId`, nothing is counted and the newest ID is returned (a
     * reader starts from now). Incremental, so a reader polling it reads each row once.
     */
    async attemptCountsAfter(
      afterId: number | undefined,
    ): Promise<{ lastId: number; counts: { lane: string | null; outcome: string; count: number }[] }> {
      const newest = await db
        .selectFrom('delivery_attempts')
        .select((eb) => eb.fn.max<number>('id').as('id'))
        .executeTakeFirst();
      const lastId = Number(newest?.id ?? 0);
      if (afterId === undefined || lastId <= afterId)
        return { lastId: Math.max(lastId, afterId ?? 0), counts: [] };
      const rows = await db
        .selectFrom('delivery_attempts')
        .select((eb) => ['lane', 'outcome', eb.fn.countAll<number>().as('count')])
        .where('id', '>', afterId)
        .where('id', '<=', lastId)
        .groupBy(['lane', 'outcome'])
        .execute();
      return {
        lastId,
        counts: rows.map((row) => ({ lane: row.lane, outcome: row.outcome, count: Number(row.count) })),
      };
    },
  };
}

export type DeliveryStore = ReturnType<typeof createDeliveryStore>;
