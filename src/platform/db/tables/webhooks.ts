/**
 * Row types of outgoing webhooks: endpoints, the messages built from events, and their delivery
 * attempts.
 */
import type { KeyMode } from './accounts.js';
import type { JsonText } from './columns.js';

export type WebhookEndpointStatus = 'enabled' | 'disabled';

/** A webhook endpoint; its signing secret is sealed with the master key (signing needs it back). */
export interface WebhookEndpointsTable {
  id: string;
  project_id: string;
  /** The mode of the key that created it: it receives the events of that mode's messages only. */
  mode: KeyMode;
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
  /** When the latest failed attempt finished: a streak only continues through short gaps. */
  last_failed_at: number | null;
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
