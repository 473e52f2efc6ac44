/**
 * Every table's row type, in one place. Times are integer milliseconds since the epoch (UTC);
 * they become ISO 8601 strings only at the HTTP edge. JSON columns hold text.
 */
import type { ColumnType } from 'kysely';

/** A JSON document stored as text. */
export type JsonText = string;

export type Role = 'owner' | 'admin' | 'developer' | 'analyst' | 'billing';
export type ProjectStatus = 'sandbox' | 'active' | 'suspended';
export type KeyMode = 'live' | 'test';

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  totp_secret_sealed: string | null;
  created_at: number;
}

export interface OrganizationMembersTable {
  id: string;
  organization_id: string;
  user_id: string;
  role: Role;
  created_at: number;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  status: ProjectStatus;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  project_id: string;
  name: string;
  mode: KeyMode;
  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  key_hash: string;
  /** The last four characters, so a person can tell keys apart. */
  key_hint: string;
  scopes: JsonText;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

export interface AuditLogTable {
  id: string;
  organization_id: string | null;
  project_id: string | null;
  actor: string;
  action: string;
  target: string | null;
  details: JsonText;
  created_at: number;
}

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

export type RecipientStatus =
  | 'queued'
  | 'deferred'
  | 'delivered'
  | 'bounced'
  | 'complained'
  | 'suppressed'
  | 'failed';
export type RecipientKind = 'to' | 'cc' | 'bcc';
export type JobState = 'scheduled' | 'queued' | 'done' | 'cancelled';

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
  html: string | null;
  text: string | null;
  /** JSON object of the allowed extra headers (threading, RFC 8058). */
  headers: JsonText;
  tags: JsonText;
  template_id: string | null;
  template_version: number | null;
  variables: JsonText | null;
  send_at: number | null;
  created_at: number;
  updated_at: number;
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

/** The one event record (DESIGN.md §4); `data` is the webhook payload's `data` object. */
export interface EventsTable {
  id: string;
  project_id: string;
  type: string;
  message_id: string | null;
  recipient: string | null;
  data: JsonText;
  created_at: number;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  organization_members: OrganizationMembersTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  messages: MessagesTable;
  message_recipients: MessageRecipientsTable;
  delivery_jobs: DeliveryJobsTable;
  events: EventsTable;
}

/** A column with a database default, optional on insert. */
export type Defaulted<T> = ColumnType<T, T | undefined, T>;
