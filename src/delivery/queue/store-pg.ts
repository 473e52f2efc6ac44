/**
 * The delivery store on PostgreSQL (the port is store.ts), through Kysely, for several nodes on one
 * database.
 *
 * A claim is one statement, as on SQLite: it picks due jobs `FOR UPDATE SKIP LOCKED` (two nodes
 * claiming at once take different jobs, neither waits for the other) and leases them with a token
 * of its own (`delivery_jobs.lease`). Renewals, releases and outcome writes name the token: a node
 * whose lease ran out, and whose job another node has claimed since, changes nothing.
 *
 * Writes that are batches (releases, renewals, lane assignments) are one statement over `unnest`
 * of arrays, not one per job.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { Traffic } from '../../platform/db/tables.js';
import type { DeliveryStore, JobRelease } from './store.js';
import { deliveryReports } from './store-reports.js';
import { type ClaimedJob, inIdOrder, type JobLease, type RecipientRow } from './store-rows.js';
import { MESSAGE_COLUMNS, PgOutcomeWrites } from './store-writes-pg.js';

const RECIPIENT_COLUMNS = ['id', 'kind', 'email', 'display', 'domain', 'status', 'attempts'] as const;

interface JobRow {
  id: string;
  message_id: string;
  project_id: string;
  domain: string;
  traffic: Traffic;
  mode: ClaimedJob['mode'];
  lane: string | null;
  attempts: number;
  created_at: number;
  lease: string | null;
}

const toJob = (row: JobRow): ClaimedJob => ({
  id: row.id,
  messageId: row.message_id,
  projectId: row.project_id,
  domain: row.domain,
  traffic: row.traffic,
  mode: row.mode,
  lane: row.lane,
  attempts: row.attempts,
  createdAt: row.created_at,
  lease: row.lease,
});

const laneIs = (lane: string | null) => (lane === null ? sql`lane is null` : sql`lane = ${lane}`);

type Loaded = Awaited<ReturnType<DeliveryStore['load']>>;
type LoadedRow = Record<string, unknown> & {
  id: string;
  recipients: RecipientRow[];
  raw_signing: string | null;
  raw_size: number | null;
  raw_bytes: Buffer | null;
};
type Waiting = Map<string, { resolve: (loaded: Loaded) => void; reject: (error: unknown) => void }[]>;

/**
 * `load`, with the loads asked for in one turn of the event loop read in one query: a claim
 * starts its jobs together, and each job's first step loads its message, so a batch of jobs costs
 * one round trip instead of one each. The message's rendering made at admission (or, for a
 * broadcast's, before its send time: broadcasts/preparation.ts) comes with it:
 * read by a render thread on its own connection it cost the thread a round trip per message and
 * the database a statement each (`scripts/bench delivery --engine postgresql`: the threads' CPU
 * per 4,000 messages fell from 0.77 s to 0.21 s; docs/decisions/storage.md).
 */
function loadBatched(db: Db): DeliveryStore['load'] {
  let waiting: Waiting | null = null;
  const run = async (batch: Waiting) => {
    try {
      const { rows } = await sql<LoadedRow>`
        select ${sql.join(MESSAGE_COLUMNS.map((c) => sql.ref(`m.${c}`)))},
               coalesce((select json_agg(json_build_object(${sql.join(
                 RECIPIENT_COLUMNS.flatMap((c) => [sql.lit(c), sql.ref(`r.${c}`)]),
               )})) from message_recipients r where r.message_id = m.id), '[]') as recipients,
               coalesce(x.signing, y.signing) as raw_signing, coalesce(x.size, y.size) as raw_size,
               coalesce(x.bytes, y.bytes) as raw_bytes
          from messages m left join message_raw x on x.message_id = m.id
          left join broadcast_renderings y on y.message_id = m.id and m.traffic = 'marketing'
         where m.id = any(${[...batch.keys()]}::text[])`.execute(db);
      const found = new Map(rows.map((row) => [row.id, row]));
      for (const [id, callers] of batch) {
        const row = found.get(id);
        let loaded: Loaded = { message: undefined, recipients: [] };
        if (row !== undefined) {
          const { recipients, raw_signing: signing, raw_size: size, raw_bytes: bytes, ...message } = row;
          loaded = { message: message as never, recipients: inIdOrder([...recipients]) };
          if (signing !== null && bytes !== null) loaded.rendering = { signing, size: Number(size), bytes };
        }
        // Each caller gets rows of its own (the steps filter and keep them); the rendering is
        // given to the first only (its bytes are released once sent).
        callers.forEach((caller, i) => {
          if (callers.length === 1) caller.resolve(loaded);
          else
            caller.resolve({
              message: loaded.message,
              recipients: [...loaded.recipients],
              ...(i === 0 && loaded.rendering ? { rendering: loaded.rendering } : {}),
            });
        });
      }
    } catch (error) {
      for (const callers of batch.values()) for (const caller of callers) caller.reject(error);
    }
  };
  return (messageId) =>
    new Promise<Loaded>((resolve, reject) => {
      if (waiting === null) {
        const batch: Waiting = new Map();
        waiting = batch;
        setImmediate(() => {
          waiting = null;
          void run(batch);
        });
      }
      const callers = waiting.get(messageId) ?? [];
      callers.push({ resolve, reject });
      waiting.set(messageId, callers);
    });
}

export function createPgDeliveryStore(db: Db): DeliveryStore {
  return {
    ...deliveryReports(db),

    async claim(traffic, lane, limit, now, leaseMs) {
      const until = now + leaseMs;
      const { rows } = await sql<JobRow>`
        update delivery_jobs set locked_until = ${until}, due_at = ${until}, updated_at = ${now}, lease = ${randomUUID()}
         where id in (select id from delivery_jobs
                       where state = 'queued' and traffic = ${traffic} and ${laneIs(lane)} and due_at <= ${now}
                       order by due_at limit ${limit}
                         for update skip locked)
        returning id, message_id, project_id, domain, traffic, mode, lane, attempts, created_at, lease`.execute(
        db,
      );
      return rows.map(toJob);
    },

    async release(jobs: readonly JobRelease[], dueAt: number, now: number) {
      if (jobs.length === 0) return;
      await sql`
        update delivery_jobs j set lane = v.lane, due_at = ${dueAt}, locked_until = null, lease = null, updated_at = ${now}
          from unnest(${jobs.map((j) => j.id)}::text[], ${jobs.map((j) => j.lane)}::text[], ${jobs.map((j) => j.lease)}::text[])
               as v(id, lane, lease)
         where j.id = v.id and j.state = 'queued' and j.lease is not distinct from v.lease`.execute(db);
    },

    unrouted(traffic, limit, now) {
      return db
        .selectFrom('delivery_jobs')
        .select(['id', 'domain', 'mode'])
        .where('state', '=', 'queued')
        .where('traffic', '=', traffic)
        .where('lane', 'is', null)
        .where('due_at', '<=', now)
        .orderBy('due_at')
        .limit(limit)
        .execute();
    },

    async assignLane(jobs) {
      if (jobs.length === 0) return;
      // Two nodes' routers may assign the same job: the second finds it assigned and leaves it.
      await sql`
        update delivery_jobs j set lane = v.lane
          from unnest(${jobs.map((j) => j.id)}::text[], ${jobs.map((j) => j.lane)}::text[]) as v(id, lane)
         where j.id = v.id and j.state = 'queued' and j.lane is null`.execute(db);
    },

    async queuedLanes(traffic) {
      const lanes: string[] = [];
      // One index seek per distinct lane, whatever the depth ('' sorts before every lane name).
      let after = '';
      for (;;) {
        const row = await db
          .selectFrom('delivery_jobs')
          .select('lane')
          .where('state', '=', 'queued')
          .where('traffic', '=', traffic)
          .where('lane', '>', after)
          .orderBy('lane')
          .limit(1)
          .executeTakeFirst();
        if (row?.lane == null) return lanes;
        lanes.push(row.lane);
        after = row.lane;
      }
    },

    async unassignLane(traffic, lane, batch, now) {
      const result = await sql`
        update delivery_jobs set lane = null, updated_at = ${now}
         where id in (select id from delivery_jobs
                       where state = 'queued' and traffic = ${traffic} and lane = ${lane}
                       limit ${batch} for update skip locked)`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },

    async renew(jobs: readonly JobLease[], until: number) {
      if (jobs.length === 0) return;
      await sql`
        update delivery_jobs j set locked_until = ${until}, due_at = ${until}
          from unnest(${jobs.map((j) => j.id)}::text[], ${jobs.map((j) => j.lease)}::text[]) as v(id, lease)
         where j.id = v.id and j.state = 'queued' and j.lease = v.lease`.execute(db);
    },

    load: loadBatched(db),

    batchesOutcomes: true,

    writesIn: (trx) => new PgOutcomeWrites(trx),

    writesAtOnce: () => new PgOutcomeWrites(db, true),

    async heldLeases(trx, jobs) {
      if (jobs.length === 0) return new Set();
      // In ID order, so two writers locking overlapping jobs never wait on each other in a cycle.
      const { rows } = await sql<{ id: string }>`
        select j.id from delivery_jobs j
          join unnest(${jobs.map((j) => j.id)}::text[], ${jobs.map((j) => j.lease)}::text[]) as v(id, lease)
            on j.id = v.id and j.lease is not distinct from v.lease
         order by j.id
           for update of j`.execute(trx);
      return new Set(rows.map((row) => row.id));
    },

    async verpTarget(kind, id) {
      if (kind === 'recipient') {
        const recipient = await db
          .selectFrom('message_recipients')
          .select([...RECIPIENT_COLUMNS, 'message_id', 'project_id'])
          .where('id', '=', id)
          .executeTakeFirst();
        return recipient
          ? { messageId: recipient.message_id, projectId: recipient.project_id, recipients: [recipient] }
          : null;
      }
      const job = await db
        .selectFrom('delivery_jobs')
        .select(['message_id', 'project_id', 'domain'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!job) return null;
      const recipients = await db
        .selectFrom('message_recipients')
        .select(RECIPIENT_COLUMNS)
        .where('message_id', '=', job.message_id)
        .where('domain', '=', job.domain)
        .execute();
      return { messageId: job.message_id, projectId: job.project_id, recipients: inIdOrder(recipients) };
    },

    async policy(domain) {
      const row = await db
        .selectFrom('mta_sts_policies')
        .selectAll()
        .where('domain', '=', domain)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        domain: row.domain,
        policyId: row.policy_id,
        mode: row.mode,
        mx: JSON.parse(row.mx) as string[],
        maxAge: Number(row.max_age),
        fetchedAt: Number(row.fetched_at),
        expiresAt: Number(row.expires_at),
      };
    },

    async savePolicy(policy) {
      const values = {
        policy_id: policy.policyId,
        mode: policy.mode,
        mx: JSON.stringify(policy.mx),
        max_age: policy.maxAge,
        fetched_at: policy.fetchedAt,
        expires_at: policy.expiresAt,
      };
      await db
        .insertInto('mta_sts_policies')
        .values({ domain: policy.domain, ...values })
        .onConflict((oc) => oc.column('domain').doUpdateSet(values))
        .execute();
    },

    async purgeAttemptsBefore(cutoff, batch = 5000) {
      const result = await db
        .deleteFrom('delivery_attempts')
        .where('id', 'in', (q) =>
          q
            .selectFrom('delivery_attempts')
            .select('id')
            .where('started_at', '<', cutoff)
            .orderBy('started_at')
            .limit(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async oldestDue() {
      const rows = await Promise.all(
        (['transactional', 'marketing'] as const).map((traffic) =>
          db
            .selectFrom('delivery_jobs')
            .select((eb) => eb.fn.min<number>('due_at').as('due'))
            .where('state', '=', 'queued')
            .where('traffic', '=', traffic)
            .executeTakeFirst(),
        ),
      );
      const dues = rows.map((row) => row?.due ?? null).filter((d): d is number => d !== null);
      return dues.length > 0 ? Math.min(...dues) : null;
    },
  };
}
