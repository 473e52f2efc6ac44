/**
 * The rows of the delivery engine's tables as the engine holds them (the store's adapters,
 * store-sqlite.ts and store-pg.ts, read and write them).
 */
import type {
  KeyMode,
  MessageStatus,
  RecipientKind,
  RecipientStatus,
  Traffic,
} from '../../platform/db/tables.js';

/**
 * A job and the token of the claim that leased it (PostgreSQL: every write of the job names it, so
 * a node whose lease ran out cannot overwrite the outcome of the node that claimed the job after
 * it; null on SQLite, where one node holds every lease).
 */
export interface JobLease {
  readonly id: string;
  readonly lease: string | null;
}

/** A leased job, as the engine holds it. */
export interface ClaimedJob extends JobLease {
  readonly messageId: string;
  readonly projectId: string;
  readonly domain: string;
  readonly traffic: Traffic;
  readonly mode: KeyMode;
  readonly lane: string | null;
  /** Attempts made before this one. */
  readonly attempts: number;
  readonly createdAt: number;
}

/** The stored fields of a message that a delivery needs. */
export interface MessageRow {
  readonly id: string;
  readonly project_id: string;
  readonly status: MessageStatus;
  readonly from_header: string;
  readonly from_email: string;
  readonly from_domain: string;
  readonly reply_to: string | null;
  readonly subject: string;
  readonly headers: string;
  readonly tags: string;
  /** When a scheduled send was due; its maximum age, Date header and latency count from here (due-time.ts). */
  readonly send_at: number | null;
  readonly created_at: number;
  /** The send's tracking overrides: 1/0, or null for the project's setting (the tracking step). */
  readonly track_opens: number | null;
  readonly track_clicks: number | null;
}

export interface RecipientRow {
  readonly id: string;
  readonly kind: RecipientKind;
  readonly email: string;
  readonly display: string;
  readonly domain: string;
  readonly status: RecipientStatus;
  readonly attempts: number;
}

export interface RecipientUpdate {
  readonly id: string;
  readonly status: RecipientStatus;
  readonly smtpCode: number | null;
  readonly smtpReply: string | null;
  readonly category: string | null;
  readonly deliveredAt: number | null;
}

export interface AttemptRow {
  readonly jobId: string;
  readonly messageId: string;
  readonly lane: string | null;
  readonly mxHost: string | null;
  readonly tls: boolean;
  readonly outcome: string;
  readonly smtpCode: number | null;
  readonly smtpReply: string | null;
  readonly startedAt: number;
  readonly durationMs: number;
}

export interface StoredPolicy {
  readonly domain: string;
  readonly policyId: string;
  readonly mode: 'enforce' | 'testing' | 'none';
  readonly mx: readonly string[];
  readonly maxAge: number;
  readonly fetchedAt: number;
  readonly expiresAt: number;
}

export interface LaneDepth {
  readonly traffic: Traffic;
  readonly lane: string | null;
  readonly queued: number;
  readonly inFlight: number;
  readonly deferred: number;
  readonly oldestCreatedAt: number | null;
}

/**
 * Recipients in ID order (the order they were submitted in: IDs sort by creation), as SQLite's
 * `order by id` would give them: IDs are ASCII, so comparing UTF-16 code units is comparing bytes.
 */
export function inIdOrder<R extends { readonly id: string }>(rows: R[]): R[] {
  return rows.length < 2 ? rows : rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * A message as rendered at admission (message_raw), as a store may read it with the message
 * (`DeliveryStore.load`); the render worker reads the same row (compose/worker-queries.ts).
 */
export interface StoredRendering {
  /** The identity of the keys it was signed with (compose/signing-identity.ts). */
  readonly signing: string;
  /** Octets before dot-stuffing. */
  readonly size: number;
  /** Dot-stuffed, ready for DATA. */
  readonly bytes: Buffer;
}
