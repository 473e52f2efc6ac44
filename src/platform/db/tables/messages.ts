/**
 * Row types of the sent messages: a message, its bodies, its recipients, and the Send API
 * idempotency records that point at it.
 */
import type { KeyMode } from './accounts.js';
import type { Defaulted, JsonText } from './columns.js';

export type Traffic = 'transactional' | 'marketing';

/** DESIGN.md §4 message statuses. */
export type MessageStatus =
  | 'scheduled'
  | 'awaiting_approval'
  | 'queued'
  | 'sending'
  | 'deferred'
  | 'delivered'
  | 'partially_delivered'
  | 'bounced'
  | 'failed'
  | 'cancelled'
  | 'rejected'
  | 'suppressed';

/** DESIGN.md §4 recipient statuses, and `cancelled`: the scheduled send was cancelled (migration 0015). */
export type RecipientStatus =
  | 'queued'
  | 'deferred'
  | 'delivered'
  | 'bounced'
  | 'complained'
  | 'suppressed'
  | 'failed'
  | 'cancelled';
export type RecipientKind = 'to' | 'cc' | 'bcc';

export interface MessagesTable {
  id: string;
  project_id: string;
  api_key_id: string | null;
  mode: KeyMode;
  traffic: Traffic;
  status: MessageStatus;
  /** The From header as submitted, display name included. */
  from_header: string;
  /** The addr-spec, domain lower-cased and in punycode. */
  from_email: string;
  from_domain: string;
  /** JSON list of addresses, or null. */
  reply_to: JsonText | null;
  subject: string;
  /** JSON object of the allowed extra headers (threading, RFC 8058). */
  headers: JsonText;
  tags: JsonText;
  template_id: string | null;
  template_version: number | null;
  variables: JsonText | null;
  send_at: number | null;
  created_at: number;
  updated_at: number;
  /** Per-message tracking overrides (migration 0004): 1/0, or null for the project setting. */
  track_opens: Defaulted<number | null>;
  track_clicks: Defaulted<number | null>;
}

/** The bodies of a sent message (migration 0008), apart so status updates never rewrite them. */
export interface MessageBodiesTable {
  message_id: string;
  html: string | null;
  text: string | null;
}

/**
 * A live message composed and DKIM-signed at admission, in its DATA form (migration 0019;
 * delivery/compose/prerender.ts), kept until the message's status is final.
 */
export interface MessageRawTable {
  message_id: string;
  /** The keys the signature was made with (delivery/compose/signing-identity.ts); "unsigned" for none. */
  signing: string;
  /** Octets before dot-stuffing (SIZE=, RFC 1870). */
  size: number;
  /** Dot-stuffed, ready for DATA. */
  bytes: Buffer;
  created_at: number;
}

export interface MessageRecipientsTable {
  id: string;
  message_id: string;
  project_id: string;
  kind: RecipientKind;
  /** Normalized address (domain lower-cased, punycode); what suppressions and throttles match. */
  email: string;
  /** The address as submitted, display name included. */
  display: string;
  domain: string;
  status: RecipientStatus;
  attempts: number;
  smtp_code: number | null;
  smtp_reply: string | null;
  bounce_category: string | null;
  delivered_at: number | null;
  updated_at: number;
}

/**
 * Send API idempotency records (migrations 0004, 0009): one per project, key mode and key, kept
 * 24 hours. Test and live keys of one project never share a record.
 */
export interface IdempotencyKeysTable {
  project_id: string;
  mode: KeyMode;
  key: string;
  message_id: string;
  created_at: number;
}

/**
 * The dashboard's history index of a message (migration 0021c; dashboard/history/indexer.ts):
 * `message_rowid` is the message's rowid; `recipient` its first `to` address.
 */
export interface MessageHistoryTable {
  message_rowid: number;
  id: string;
  project_id: string;
  mode: KeyMode;
  status: MessageStatus;
  from_email: string;
  subject: string;
  recipient: string;
}

/** Messages per project, mode and status, kept by the indexer and a status trigger. */
export interface MessageHistoryCountsTable {
  project_id: string;
  mode: KeyMode;
  status: MessageStatus;
  n: number;
}
