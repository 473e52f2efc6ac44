/**
 * The delivery store's hot statements, prepared once on the raw handle (store.ts runs them under
 * Kysely's connection lock). The claim is ONE statement that picks due jobs and leases them.
 */
import type SQLite from 'better-sqlite3';
import type {
  DeliveryJobsTable,
  KeyMode,
  MessageStatus,
  RecipientStatus,
  Traffic,
} from '../../platform/db/tables.js';
import type { MessageRow, RecipientRow } from './store-rows.js';

/** The job columns a claim returns. */
export type JobSqlRow = Pick<
  DeliveryJobsTable,
  'id' | 'message_id' | 'project_id' | 'domain' | 'traffic' | 'mode' | 'lane' | 'attempts' | 'created_at'
>;

/** Prepares every statement; call once the migrations have run (the tables must exist). */
export function prepare(sqlite: SQLite.Database) {
  return {
    claim: sqlite.prepare<[number, number, number, Traffic, string | null, number, number], JobSqlRow>(
      `update delivery_jobs set locked_until = ?, due_at = ?, updated_at = ?
       where id in (select id from delivery_jobs
                    where state = 'queued' and traffic = ? and lane is ? and due_at <= ?
                    order by due_at limit ?)
       returning id, message_id, project_id, domain, traffic, mode, lane, attempts, created_at`,
    ),
    release: sqlite.prepare<[string | null, number, number, string]>(
      `update delivery_jobs set lane = ?, due_at = ?, locked_until = null, updated_at = ?
       where id = ? and state = 'queued'`,
    ),
    assign: sqlite.prepare<[string, string]>(
      `update delivery_jobs set lane = ? where id = ? and state = 'queued' and lane is null`,
    ),
    unrouted: sqlite.prepare<[Traffic, number, number], { id: string; domain: string; mode: KeyMode }>(
      `select id, domain, mode from delivery_jobs
       where state = 'queued' and traffic = ? and lane is null and due_at <= ?
       order by due_at limit ?`,
    ),
    // One index seek per distinct lane (a skip scan of delivery_jobs_lane_due), whatever the depth.
    nextLane: sqlite.prepare<[Traffic, string], { lane: string }>(
      `select lane from delivery_jobs
       where state = 'queued' and traffic = ? and lane > ?
       order by lane limit 1`,
    ),
    unassignLane: sqlite.prepare<[number, Traffic, string, number]>(
      `update delivery_jobs set lane = null, updated_at = ?
       where id in (select id from delivery_jobs
                    where state = 'queued' and traffic = ? and lane = ?
                    limit ?)`,
    ),
    renew: sqlite.prepare<[number, number, string]>(
      `update delivery_jobs set locked_until = ?, due_at = ? where id = ? and state = 'queued'`,
    ),
    message: sqlite.prepare<[string], MessageRow>(
      `select id, project_id, status, from_header, from_email, from_domain, reply_to, subject, headers, tags, send_at,
              created_at, track_opens, track_clicks
       from messages where id = ?`,
    ),
    // In no order: `order by id` would sort through a temporary b-tree on every load (the index is
    // on message_id alone); store.ts sorts the few rows instead.
    recipients: sqlite.prepare<[string], RecipientRow>(
      `select id, kind, email, display, domain, status, attempts from message_recipients
       where message_id = ?`,
    ),
    updateRecipient: sqlite.prepare<
      [RecipientStatus, number | null, string | null, string | null, number | null, number, string]
    >(
      `update message_recipients set status = ?, attempts = attempts + 1, smtp_code = ?, smtp_reply = ?,
         bounce_category = ?, delivered_at = coalesce(?, delivered_at), updated_at = ?
       where id = ?`,
    ),
    finishJob: sqlite.prepare<[string | null, string | null, number, string]>(
      `update delivery_jobs set state = 'done', locked_until = null, attempts = attempts + 1, lane = coalesce(?, lane),
         last_error = ?, updated_at = ?
       where id = ?`,
    ),
    rescheduleJob: sqlite.prepare<[number, string | null, string | null, number, string]>(
      `update delivery_jobs set due_at = ?, locked_until = null, attempts = attempts + 1, lane = coalesce(?, lane),
         last_error = ?, updated_at = ?
       where id = ?`,
    ),
    statusCounts: sqlite.prepare<[string], { status: RecipientStatus; n: number }>(
      `select status, count(*) as n from message_recipients where message_id = ? group by status`,
    ),
    setMessageStatus: sqlite.prepare<[MessageStatus, number, string, MessageStatus]>(
      `update messages set status = ?, updated_at = ? where id = ? and status <> ? and status <> 'cancelled'`,
    ),
    bumpSoftBounce: sqlite.prepare<[string, string, number], { count: number }>(
      `insert into delivery_soft_bounces (project_id, email, count, last_at) values (?, ?, 1, ?)
       on conflict (project_id, email) do update set count = count + 1, last_at = excluded.last_at
       returning count`,
    ),
    clearSoftBounce: sqlite.prepare<[string, string]>(
      `delete from delivery_soft_bounces where project_id = ? and email = ?`,
    ),
    insertAttempt: sqlite.prepare<
      [
        string,
        string,
        string | null,
        string | null,
        number,
        string,
        number | null,
        string | null,
        number,
        number,
      ]
    >(
      `insert into delivery_attempts (job_id, message_id, lane, mx_host, tls, outcome, smtp_code, smtp_reply,
         started_at, duration_ms)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    recipientById: sqlite.prepare<[string], RecipientRow & { message_id: string; project_id: string }>(
      `select id, message_id, project_id, kind, email, display, domain, status, attempts
       from message_recipients where id = ?`,
    ),
    jobById: sqlite.prepare<[string], JobSqlRow>(
      `select id, message_id, project_id, domain, traffic, mode, lane, attempts, created_at
       from delivery_jobs where id = ?`,
    ),
    policy: sqlite.prepare<[string], Record<string, unknown>>(
      `select * from mta_sts_policies where domain = ?`,
    ),
    savePolicy: sqlite.prepare<[string, string, string, string, number, number, number]>(
      `insert into mta_sts_policies (domain, policy_id, mode, mx, max_age, fetched_at, expires_at)
       values (?, ?, ?, ?, ?, ?, ?)
       on conflict (domain) do update set policy_id = excluded.policy_id, mode = excluded.mode, mx = excluded.mx,
         max_age = excluded.max_age, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`,
    ),
    purgeAttempts: sqlite.prepare<[number, number]>(
      `delete from delivery_attempts where id in (
         select id from delivery_attempts where started_at < ? order by started_at limit ?)`,
    ),
    oldestDue: sqlite.prepare<[Traffic], { due: number | null }>(
      `select min(due_at) as due from delivery_jobs where state = 'queued' and traffic = ?`,
    ),
  };
}

export type Statements = ReturnType<typeof prepare>;
