/**
 * Row types of broadcasts, the ledger of the messages each one queued (migration 0024) and the
 * renderings prepared ahead of a broadcast's send time (migration 0029).
 */
import type { KeyMode } from './accounts.js';
import type { JsonText } from './columns.js';

export type BroadcastStatus = 'draft' | 'scheduled' | 'sending' | 'sent' | 'cancelled' | 'failed';

export interface BroadcastsTable {
  id: string;
  project_id: string;
  mode: KeyMode;
  api_key_id: string | null;
  audience_id: string;
  name: string;
  from_header: string;
  /** JSON list of addresses, or null. */
  reply_to: JsonText | null;
  subject: string | null;
  html: string | null;
  text: string | null;
  /** The template as named (ID or slug), for a broadcast made from a published template. */
  template: string | null;
  /** The template and version the sending used, fixed when it starts. */
  template_id: string | null;
  template_version: number | null;
  tags: JsonText;
  status: BroadcastStatus;
  send_at: number | null;
  started_at: number | null;
  finished_at: number | null;
  cancelled_at: number | null;
  /** The last contact ID the expansion passed; it moves with each committed batch. */
  cursor: string | null;
  /** Contacts the broadcast goes to: counted when sending starts, exact once it is sent. */
  recipients: number | null;
  /** Messages queued so far. */
  queued: number;
  /** Subscribed contacts left out because their address is on the suppression list. */
  suppressed: number;
  last_error: string | null;
  /** The last contact ID the preparation passed (broadcasts/preparation.ts; migration 0029). */
  prepare_cursor: string | null;
  /** Messages prepared (composed and signed) ahead of the send time. */
  prepared: number;
  /** The send time the prepared renderings are dated for; null when none were made. */
  prepared_for: number | null;
  /** When the preparation passed the last contact. */
  prepared_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface BroadcastMessagesTable {
  broadcast_id: string;
  contact_id: string;
  message_id: string;
  created_at: number;
}

/** One contact's message, composed and signed before its broadcast's send time. */
export interface BroadcastRenderingsTable {
  /** The ID the message will have when the expansion queues it. */
  message_id: string;
  broadcast_id: string;
  contact_id: string;
  /** The send time it is dated for (its Date header). */
  send_at: number;
  /** The keys it was signed with (delivery/compose/signing-identity.ts). */
  signing: string;
  /** Octets before dot-stuffing. */
  size: number;
  /** Dot-stuffed, ready for DATA. */
  bytes: Buffer;
  created_at: number;
}
