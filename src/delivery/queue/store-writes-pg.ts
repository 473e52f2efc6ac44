/**
 * The outcome writes on PostgreSQL (the port is store-writes.ts): collected, then sent as ONE
 * statement (one `update ... from unnest(...)` or insert per table, each a data-modifying `with`
 * clause of it) when a read needs them (a read sees every write before it, as on SQLite), or when
 * the caller flushes. A batch of outcomes then costs one round trip for its writes; sent write by
 * write it cost several per job, and a statement per table one per table, each a round trip the
 * single writer waited for (the profile of `scripts/bench delivery --engine postgresql` spent most
 * of its database time sending them). The tables written are distinct, so the clauses, which share
 * one snapshot, never touch the same row.
 *
 * Job writes name the claim's lease token: a job another node has claimed since is not written.
 * The outcome writer locks the jobs it records first (`heldLeases`, store-pg.ts), so this never
 * happens there; it is the last line of defence.
 *
 * `flush()` may throw (a refused write): the caller's transaction then fails, and with it every
 * write collected.
 */
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import type { EventsTable, MessageStatus } from '../../platform/db/tables.js';
import type { AttemptRow, JobLease, MessageRow, RecipientRow, RecipientUpdate } from './store-rows.js';
import type { OutcomeWrites, RecipientCounts } from './store-writes.js';

interface JobWrite {
  readonly id: string;
  readonly lease: string | null;
  /** done: finished; retry: due again at `dueAt`, an attempt counted; release: due at `dueAt`, none counted. */
  readonly kind: 'done' | 'retry' | 'release';
  readonly dueAt: number | null;
  readonly lane: string | null;
  readonly lastError: string | null;
  readonly now: number;
}

const columns = <T, K extends string>(rows: readonly T[], pick: (row: T) => Record<K, unknown>) => {
  const out = {} as Record<K, unknown[]>;
  for (const row of rows) {
    for (const [key, value] of Object.entries(pick(row)) as [K, unknown][]) {
      const column = out[key] ?? [];
      column.push(value);
      out[key] = column;
    }
  }
  return out;
};

/**
 * Thrown by a read of the outcome writes made for `commitHeld` (they have no transaction to read
 * in): the caller writes the batch in a transaction instead.
 */
export class NeedsTransaction extends Error {
  constructor(what: string) {
    super(`${what} needs the outcome writer's transaction`);
  }
}

export class PgOutcomeWrites implements OutcomeWrites {
  readonly #trx: Db;
  /** Collected for `commitHeld`, one statement outside a transaction: reads throw. */
  readonly #once: boolean;
  #recipients: { update: RecipientUpdate; now: number }[] = [];
  #jobs: JobWrite[] = [];
  #statuses = new Map<string, { status: MessageStatus; now: number }>();
  #cleared: { projectId: string; email: string }[] = [];
  #attempts: AttemptRow[] = [];

  /**
   * Writes in `trx`, a transaction (its connection); with `once`, `trx` is the pool and the writes
   * are only sent by `commitHeld`: every read throws NeedsTransaction.
   */
  constructor(trx: Db, once = false) {
    this.#trx = trx;
    this.#once = once;
  }

  #reading(what: string): void {
    if (this.#once) throw new NeedsTransaction(what);
  }

  recipient(update: RecipientUpdate, now: number): void {
    this.#recipients.push({ update, now });
  }

  finishJob(job: JobLease, lane: string | null, lastError: string | null, now: number): void {
    this.#jobs.push({ ...job, kind: 'done', dueAt: null, lane, lastError, now });
  }

  rescheduleJob(
    job: JobLease,
    dueAt: number,
    lane: string | null,
    lastError: string | null,
    now: number,
  ): void {
    this.#jobs.push({ ...job, kind: 'retry', dueAt, lane, lastError, now });
  }

  releaseJob(job: JobLease, lane: string | null, now: number): void {
    this.#jobs.push({ ...job, kind: 'release', dueAt: now, lane, lastError: null, now });
  }

  /**
   * Locks the message's row first: two nodes recording jobs of one message (one per recipient
   * domain) then count one after the other, the second seeing the first's recipients, so the last
   * to commit writes the status of all of them.
   */
  async statusCounts(messageId: string): Promise<RecipientCounts> {
    this.#reading('counting recipients');
    await this.flush();
    await sql`select 1 from messages where id = ${messageId} for no key update`.execute(this.#trx);
    const { rows } = await sql<{ status: keyof RecipientCounts; n: number }>`
      select status, count(*)::int as n from message_recipients where message_id = ${messageId} group by status`.execute(
      this.#trx,
    );
    const counts: RecipientCounts = {};
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  setMessageStatus(messageId: string, status: MessageStatus, now: number): void {
    // The last status written for a message is the one that counts (as on SQLite, in order).
    this.#statuses.delete(messageId);
    this.#statuses.set(messageId, { status, now });
  }

  async bumpSoftBounce(projectId: string, email: string, now: number): Promise<number> {
    this.#reading('counting a soft bounce');
    await this.flush();
    const row = await this.#trx
      .insertInto('delivery_soft_bounces')
      .values({ project_id: projectId, email, count: 1, last_at: now })
      .onConflict((oc) =>
        oc.columns(['project_id', 'email']).doUpdateSet((eb) => ({
          count: eb('delivery_soft_bounces.count', '+', 1),
          last_at: eb.ref('excluded.last_at'),
        })),
      )
      .returning('count')
      .executeTakeFirst();
    return Number(row?.count ?? 1);
  }

  clearSoftBounce(projectId: string, email: string): void {
    this.#cleared.push({ projectId, email });
  }

  attempt(row: AttemptRow): void {
    this.#attempts.push(row);
  }

  async recipientById(id: string) {
    this.#reading('reading a recipient');
    await this.flush();
    return (await this.#trx
      .selectFrom('message_recipients')
      .select(['id', 'message_id', 'project_id', 'kind', 'email', 'display', 'domain', 'status', 'attempts'])
      .where('id', '=', id)
      .executeTakeFirst()) as (RecipientRow & { message_id: string; project_id: string }) | undefined;
  }

  async message(id: string): Promise<MessageRow | undefined> {
    this.#reading('reading a message');
    await this.flush();
    return this.#trx.selectFrom('messages').select(MESSAGE_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** Sends every write collected, in one statement. */
  async flush(): Promise<void> {
    if (this.#once) throw new NeedsTransaction('flushing');
    const parts = this.#clauses(false);
    const [only] = parts;
    if (only === undefined) return;
    if (parts.length === 1) {
      await only.execute(this.#trx);
      return;
    }
    // Each write a clause of one statement: PostgreSQL runs every data-modifying `with` clause to
    // completion whether or not the statement reads it.
    const clauses = parts.map((part, i) => sql`${sql.raw(`w${i}`)} as (${part})`);
    await sql`with ${sql.join(clauses)} select 1`.execute(this.#trx);
  }

  /**
   * Sends every write collected and `events` as ONE statement, outside any transaction (a
   * statement is atomic by itself): its first clause locks the rows of `jobs` whose lease is still
   * the one they were claimed with (in ID order, as `heldLeases`), and every write names them: for
   * a job whose lease another claim has taken since, neither the job nor its message's recipients,
   * status, attempt log, soft-bounce clears or events are written. Returns the IDs of the jobs
   * written. A batch then costs one round trip, where a transaction cost five (begin, lock, writes,
   * events, commit), and the locks it takes (the history counts the status trigger updates,
   * migrations-pg/0006) are held for the statement only, not across round trips. Only for
   * batches whose jobs each carry all their message's recipients (one job per message).
   */
  async commitHeld(jobs: readonly JobLease[], events: readonly EventsTable[]): Promise<Set<string>> {
    if (jobs.length === 0) return new Set();
    const parts = this.#clauses(true);
    if (events.length > 0) {
      const v = columns(events, (e) => ({
        id: e.id,
        project: e.project_id,
        type: e.type,
        message: e.message_id,
        recipient: e.recipient,
        data: e.data,
        at: e.created_at,
      }));
      parts.push(sql`
        insert into events (id, project_id, type, message_id, recipient, data, created_at)
        select v.id, v.project, v.type, v.message, v.recipient, v.data, v.at
          from unnest(${v.id}::text[], ${v.project}::text[], ${v.type}::text[], ${v.message}::text[],
                      ${v.recipient}::text[], ${v.data}::text[], ${v.at}::bigint[])
                 with ordinality as v(id, project, type, message, recipient, data, at, n)
         where v.message in (select message_id from held)
         order by v.n`);
    }
    const held = sql`held as (
      select j.id, j.message_id from delivery_jobs j
        join unnest(${jobs.map((j) => j.id)}::text[], ${jobs.map((j) => j.lease)}::text[]) as v(id, lease)
          on j.id = v.id and j.lease is not distinct from v.lease
       order by j.id
         for update of j)`;
    const clauses = [held, ...parts.map((part, i) => sql`${sql.raw(`w${i}`)} as (${part})`)];
    const { rows } = await sql<{ id: string }>`with ${sql.join(clauses)} select id from held`.execute(
      this.#trx,
    );
    return new Set(rows.map((row) => row.id));
  }

  /**
   * One statement per table for the writes collected, which it forgets; `guarded`, each names the
   * jobs of the `held` clause `commitHeld` puts before them.
   */
  #clauses(guarded: boolean): RawBuilder<unknown>[] {
    const only = (condition: RawBuilder<unknown>) => (guarded ? sql`and ${condition}` : sql``);
    const recipients = this.#recipients;
    const jobs = this.#jobs;
    const statuses = this.#statuses;
    const cleared = this.#cleared;
    const attempts = this.#attempts;
    this.#recipients = [];
    this.#jobs = [];
    this.#statuses = new Map();
    this.#cleared = [];
    this.#attempts = [];
    const parts: RawBuilder<unknown>[] = [];
    if (recipients.length > 0) {
      const v = columns(recipients, ({ update: u, now }) => ({
        id: u.id,
        status: u.status,
        code: u.smtpCode,
        reply: u.smtpReply,
        category: u.category,
        delivered: u.deliveredAt,
        now,
      }));
      parts.push(sql`
        update message_recipients r
           set status = v.status, attempts = r.attempts + 1, smtp_code = v.code, smtp_reply = v.reply,
               bounce_category = v.category, delivered_at = coalesce(v.delivered, r.delivered_at), updated_at = v.now
          from unnest(${v.id}::text[], ${v.status}::text[], ${v.code}::bigint[], ${v.reply}::text[],
                      ${v.category}::text[], ${v.delivered}::bigint[], ${v.now}::bigint[])
               as v(id, status, code, reply, category, delivered, now)
         where r.id = v.id ${only(sql`r.message_id in (select message_id from held)`)}`);
    }
    if (jobs.length > 0) {
      const v = columns(jobs, (j) => ({
        id: j.id,
        lease: j.lease,
        kind: j.kind,
        due: j.dueAt,
        lane: j.lane,
        error: j.lastError,
        now: j.now,
      }));
      parts.push(sql`
        update delivery_jobs j
           set state = case when v.kind = 'done' then 'done' else j.state end,
               due_at = coalesce(v.due, j.due_at),
               locked_until = null, lease = null,
               attempts = j.attempts + case when v.kind = 'release' then 0 else 1 end,
               lane = case when v.kind = 'release' then v.lane else coalesce(v.lane, j.lane) end,
               last_error = case when v.kind = 'release' then j.last_error else v.error end,
               updated_at = v.now
          from unnest(${v.id}::text[], ${v.lease}::text[], ${v.kind}::text[], ${v.due}::bigint[],
                      ${v.lane}::text[], ${v.error}::text[], ${v.now}::bigint[])
               as v(id, lease, kind, due, lane, error, now)
         where j.id = v.id and j.lease is not distinct from v.lease
           and (v.kind <> 'release' or j.state = 'queued') ${only(sql`j.id in (select id from held)`)}`);
    }
    if (statuses.size > 0) {
      const entries = [...statuses];
      const v = columns(entries, ([id, s]) => ({ id, status: s.status, now: s.now }));
      parts.push(sql`
        update messages m set status = v.status, updated_at = v.now
          from unnest(${v.id}::text[], ${v.status}::text[], ${v.now}::bigint[]) as v(id, status, now)
         where m.id = v.id and m.status <> v.status and m.status <> 'cancelled'
               ${only(sql`m.id in (select message_id from held)`)}`);
    }
    if (cleared.length > 0) {
      const v = columns(cleared, (c) => ({ project: c.projectId, email: c.email }));
      parts.push(sql`
        delete from delivery_soft_bounces d
         using unnest(${v.project}::text[], ${v.email}::text[]) as v(project, email)
         where d.project_id = v.project and d.email = v.email
               ${only(sql`exists (select 1 from held h join message_recipients x on x.message_id = h.message_id
                                   where x.project_id = v.project and x.email = v.email)`)}`);
    }
    if (attempts.length > 0) {
      const v = columns(attempts, (a) => ({
        job: a.jobId,
        message: a.messageId,
        lane: a.lane,
        mx: a.mxHost,
        tls: a.tls ? 1 : 0,
        outcome: a.outcome,
        code: a.smtpCode,
        reply: a.smtpReply,
        started: a.startedAt,
        duration: a.durationMs,
      }));
      parts.push(sql`
        insert into delivery_attempts
               (job_id, message_id, lane, mx_host, tls, outcome, smtp_code, smtp_reply, started_at, duration_ms)
        select * from unnest(${v.job}::text[], ${v.message}::text[], ${v.lane}::text[], ${v.mx}::text[],
                             ${v.tls}::bigint[], ${v.outcome}::text[], ${v.code}::bigint[], ${v.reply}::text[],
                             ${v.started}::bigint[], ${v.duration}::bigint[])
                 as v(job, message, lane, mx, tls, outcome, code, reply, started, duration)
         where true ${only(sql`v.job in (select id from held)`)}`);
    }
    return parts;
  }
}

/** The message columns a delivery reads (store-statements.ts' `message`). */
export const MESSAGE_COLUMNS = [
  'id',
  'project_id',
  'status',
  'from_header',
  'from_email',
  'from_domain',
  'reply_to',
  'subject',
  'headers',
  'tags',
  'send_at',
  'created_at',
  'track_opens',
  'track_clicks',
] as const;
