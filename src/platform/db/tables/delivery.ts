/**
 * Row types of the delivery engine: the job queue, cached MTA-STS policies, soft-bounce counts and
 * the log of SMTP transactions tried.
 */
import type { Generated } from 'kysely';
import type { KeyMode } from './accounts.js';
import type { JsonText } from './columns.js';
import type { Traffic } from './messages.js';

export type JobState = 'scheduled' | 'queued' | 'done' | 'cancelled';

/** One message to one recipient domain: one SMTP transaction. The queue is this table. */
export interface DeliveryJobsTable {
  id: string;
  message_id: string;
  project_id: string;
  domain: string;
  traffic: Traffic;
  mode: KeyMode;
  state: JobState;
  /** Provider lane, known once the MX is resolved. */
  lane: string | null;
  due_at: number;
  /** A claimed job is locked until this time; a crash lets the lease expire and the job is due again. */
  locked_until: number | null;
  attempts: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** A cached MTA-STS policy (RFC 8461 §3.2), kept until `expires_at` = fetched_at + max_age. */
export interface MtaStsPoliciesTable {
  domain: string;
  policy_id: string;
  mode: 'enforce' | 'testing' | 'none';
  /** JSON list of MX patterns ("mx.example.com", "*.example.net"). */
  mx: JsonText;
  /** Seconds, as the policy gave it. */
  max_age: number;
  fetched_at: number;
  expires_at: number;
}

/** Soft bounces in a row per address; a delivery clears the row, the limit suppresses it. */
export interface DeliverySoftBouncesTable {
  project_id: string;
  email: string;
  count: number;
  last_at: number;
}

/** One SMTP transaction tried for a job (or the sandbox sink's answer), for operators. */
export interface DeliveryAttemptsTable {
  id: Generated<number>;
  job_id: string;
  message_id: string;
  lane: string | null;
  mx_host: string | null;
  /** 1 when the transaction ran over TLS. */
  tls: number;
  outcome: string;
  smtp_code: number | null;
  smtp_reply: string | null;
  started_at: number;
  duration_ms: number;
}
