/**
 * Every table's row type, in one place. Times are integer milliseconds since the epoch (UTC);
 * they become ISO 8601 strings only at the HTTP edge. JSON columns hold text.
 */
import type { ColumnType, Generated } from 'kysely';

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

export type DomainStatus = 'pending' | 'verified' | 'failed';

/** A sending domain; `checks` holds the last DNS verification result per record (JSON). */
export interface DomainsTable {
  id: string;
  project_id: string;
  /** Lower case A-labels, no trailing dot. */
  name: string;
  region: string;
  status: DomainStatus;
  checks: JsonText;
  created_at: number;
  updated_at: number;
  verified_at: number | null;
  last_checked_at: number | null;
}

/** A domain's DKIM key per algorithm; the private key only ever sealed (src/dkim/key-seal.ts). */
export interface DomainDkimKeysTable {
  domain_id: string;
  algorithm: 'rsa-sha256' | 'ed25519-sha256';
  selector: string;
  /** Base64, as published in `p=`. */
  public_key: string;
  private_key_sealed: string;
  created_at: number;
}

export type SuppressionReason =
  | 'hard_bounce'
  | 'spam_complaint'
  | 'unsubscribe'
  | 'manual_block'
  | 'repeated_soft_bounce'
  | 'abuse_decision'
  | 'invalid_address';

export interface SuppressionsTable {
  id: string;
  project_id: string;
  /** normalizeEmail() of the address: what every lookup matches. */
  email: string;
  reason: SuppressionReason;
  /** Who put it there: api, bounce, complaint, unsubscribe, operator, validation. */
  source: string;
  message_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface TemplatesTable {
  id: string;
  project_id: string;
  slug: string | null;
  /** The newest version: the current draft (or the published one when it was published). */
  latest_version: number;
  published_version: number | null;
  created_at: number;
  updated_at: number;
}

/** Immutable: a version is written once and never updated except for `published_at`. */
export interface TemplateVersionsTable {
  id: string;
  template_id: string;
  version: number;
  name: string;
  subject: string;
  html_body: string | null;
  text_body: string | null;
  /** JSON list of declared variable names. */
  variables: JsonText;
  created_at: number;
  /** When this version last became the published one. */
  published_at: number | null;
}

/** Send API idempotency records (migration 0004): one per project and key, kept 24 hours. */
export interface IdempotencyKeysTable {
  project_id: string;
  key: string;
  message_id: string;
  created_at: number;
}

/** Consumers of the event log keep their position here (the webhook dispatcher, analytics). */
export interface EventCursorsTable {
  consumer: string;
  last_event_id: string;
  updated_at: number;
}

export type WebhookEndpointStatus = 'enabled' | 'disabled';

/** A webhook endpoint; its signing secret is sealed with the master key (signing needs it back). */
export interface WebhookEndpointsTable {
  id: string;
  project_id: string;
  url: string;
  description: string | null;
  /** JSON list of event types, or `["*"]`. */
  events: JsonText;
  status: WebhookEndpointStatus;
  /** `gone` (410), `failing` (failed for webhooks.disable_after), `manual`. */
  disabled_reason: string | null;
  secret_sealed: string;
  /** During a rotation the previous secret also signs until it expires. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  /** Start of the current run of failed attempts; null after a success. */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

/** One event to one endpoint: the body exactly as signed, and the stable `webhook-id` (its id). */
export interface WebhookMessagesTable {
  id: string;
  endpoint_id: string;
  project_id: string;
  event_id: string;
  event_type: string;
  body: string;
  created_at: number;
}

export type WebhookAttemptState = 'pending' | 'succeeded' | 'failed';

/** One delivery attempt (`whd_`): pending until the dispatcher has sent it, then its outcome. */
export interface WebhookAttemptsTable {
  id: string;
  message_id: string;
  endpoint_id: string;
  attempt: number;
  trigger: 'event' | 'retry' | 'replay';
  replay_of: string | null;
  previous_attempt_id: string | null;
  state: WebhookAttemptState;
  due_at: number;
  locked_until: number | null;
  url: string | null;
  requested_at: number | null;
  duration_ms: number | null;
  response_status: number | null;
  /** JSON object of the allowlisted response headers. */
  response_headers: JsonText | null;
  response_body: string | null;
  error: string | null;
  created_at: number;
}

/** The analytics projection of one recipient of one message (its current outcome). */
export interface AnalyticsRecipientsTable {
  message_id: string;
  recipient: string;
  project_id: string;
  /** UTC day number (ms / 86 400 000) the message was accepted. */
  day: number;
  /** Provider lane, '' until the delivery engine reports one. */
  lane: string;
  status: string;
  queued_at: number | null;
  delivered_at: number | null;
  latency_ms: number | null;
  opened: number;
  clicked: number;
  updated_at: number;
}

/** Counters per project, acceptance day and lane; `latency` is a JSON histogram (analytics). */
export interface AnalyticsDailyTable {
  project_id: string;
  day: number;
  lane: string;
  accepted: number;
  queued: number;
  deferred: number;
  delivered: number;
  bounced: number;
  complained: number;
  failed: number;
  suppressed: number;
  unique_opens: number;
  unique_clicks: number;
  latency: JsonText;
}

/** An inbound route (migration 0007): `local_part` '' is the domain's catch-all. */
export interface InboundRoutesTable {
  id: string;
  project_id: string;
  domain_id: string;
  /** Lower-case A-labels, copied from the domain so RCPT TO finds the route with one query. */
  domain: string;
  local_part: Defaulted<string>;
  created_at: number;
}

/** One accepted SMTP transaction, written when its spool file has been processed. */
export interface InboundReceiptsTable {
  id: string;
  /** routed, dsn, arf, or ignored (e.g. an auto-reply to a bounce address). */
  kind: string;
  mail_from: string;
  rcpt_to: JsonText;
  remote_ip: string;
  size_bytes: number;
  outcome: Defaulted<JsonText>;
  received_at: number;
  processed_at: number;
}

export interface InboundThreadsTable {
  id: string;
  project_id: string;
  subject: string;
  created_at: number;
  last_message_at: number;
}

/** The Message-ID index of threads: inbound and outbound Message-IDs, without angle brackets. */
export interface ThreadMessageIdsTable {
  project_id: string;
  message_id_header: string;
  thread_id: string;
  direction: 'inbound' | 'outbound';
  /** `inb_...` or `msg_...`. */
  ref_id: string;
  at: number;
}

export interface InboundMessagesTable {
  id: string;
  project_id: string;
  receipt_id: string;
  route_id: string | null;
  thread_id: string;
  mail_from: string;
  /** JSON list of the envelope recipients routed to this project. */
  rcpt_to: JsonText;
  from_header: string;
  from_email: string;
  to: JsonText;
  cc: JsonText;
  reply_to: JsonText;
  subject: string;
  text: string | null;
  html: string | null;
  /** JSON list of [name, value] pairs in message order. */
  headers: JsonText;
  date: number | null;
  message_id_header: string | null;
  in_reply_to: string | null;
  references: JsonText;
  /** JSON: SPF, DKIM, DMARC and ARC results (mailauth). */
  auth: JsonText;
  remote_ip: string;
  helo: string;
  tls: number;
  size_bytes: number;
  created_at: number;
}

export type ScanState = 'pending' | 'clean' | 'infected' | 'error';

export interface InboundAttachmentsTable {
  id: string;
  project_id: string;
  message_id: string;
  position: number;
  filename: string | null;
  content_type: string;
  content_id: string | null;
  disposition: string;
  size_bytes: number;
  sha256: string;
  scan_state: ScanState;
  scan_signature: string | null;
  scan_detail: string | null;
  scan_attempts: Defaulted<number>;
  /** Not scanned again before this time (a failed scan backs off). */
  scan_after: Defaulted<number>;
  scanned_at: number | null;
  content: Buffer;
  created_at: number;
}

export interface InboundRepliesTable {
  project_id: string;
  idempotency_key: string;
  inbound_id: string;
  message_id: string;
  created_at: number;
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

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  organization_members: OrganizationMembersTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  messages: MessagesTable;
  message_bodies: MessageBodiesTable;
  message_recipients: MessageRecipientsTable;
  delivery_jobs: DeliveryJobsTable;
  events: EventsTable;
  mta_sts_policies: MtaStsPoliciesTable;
  delivery_soft_bounces: DeliverySoftBouncesTable;
  delivery_attempts: DeliveryAttemptsTable;
  event_cursors: EventCursorsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_attempts: WebhookAttemptsTable;
  analytics_recipients: AnalyticsRecipientsTable;
  analytics_daily: AnalyticsDailyTable;
  domains: DomainsTable;
  domain_dkim_keys: DomainDkimKeysTable;
  suppressions: SuppressionsTable;
  templates: TemplatesTable;
  template_versions: TemplateVersionsTable;
  idempotency_keys: IdempotencyKeysTable;
  inbound_routes: InboundRoutesTable;
  inbound_receipts: InboundReceiptsTable;
  inbound_threads: InboundThreadsTable;
  thread_message_ids: ThreadMessageIdsTable;
  inbound_messages: InboundMessagesTable;
  inbound_attachments: InboundAttachmentsTable;
  inbound_replies: InboundRepliesTable;
}

/** A column with a database default, optional on insert. */
export type Defaulted<T> = ColumnType<T, T | undefined, T>;
