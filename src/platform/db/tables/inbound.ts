/**
 * Row types of received mail: routes, SMTP receipts, threads and their Message-ID index, parsed
 * messages, attachments and the idempotency records of replies.
 */
import type { KeyMode } from './accounts.js';
import type { Defaulted, JsonText } from './columns.js';

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
  /** Why the message could not be parsed; it was stored whole as an attachment (migration 0013). */
  parse_error: string | null;
  /**
   * Why the message was stored without being processed (a suspected poison message): envelope and
   * header fields only, the whole message an attachment never scanned nor downloadable (migration 0028).
   */
  processing_error: string | null;
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
  /** Idempotency keys are per project and key mode (migration 0011). */
  mode: KeyMode;
  idempotency_key: string;
  inbound_id: string;
  message_id: string;
  created_at: number;
}
