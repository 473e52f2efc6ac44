/**
 * Row types of the public status area: incidents and maintenance windows, their updates, status
 * subscriptions and the notices queued for subscribers (migration 0026).
 */
import type { Generated } from 'kysely';
import type { JsonText } from './columns.js';

/** An incident or a maintenance window (`kind`); `state` and `impact` follow src/status/model.ts. */
export interface StatusIncidentsTable {
  id: string;
  kind: 'incident' | 'maintenance';
  title: string;
  /** `degraded`, `partial_outage`, `major_outage`; `maintenance` for a maintenance window. */
  impact: string;
  state: string;
  /** JSON list of component IDs. */
  components: JsonText;
  origin: 'operator' | 'automatic';
  /** The measured component an automatic incident is about; null for the operator's. */
  auto_component: string | null;
  /** A maintenance window's planned start and end. */
  starts_at: number | null;
  ends_at: number | null;
  created_at: number;
  updated_at: number;
  /** When it was resolved, completed or cancelled; null while open. */
  closed_at: number | null;
}

/** One change of an incident: a feed item and a notice to each verified subscriber. */
export interface StatusIncidentUpdatesTable {
  seq: Generated<number>;
  id: string;
  incident_id: string;
  state: string;
  impact: string;
  message: string;
  created_at: number;
  /** When its notices were queued for the subscribers verified by then; null until. */
  notified_at: number | null;
}

export type StatusSubscriptionState = 'pending' | 'verified' | 'removed';

export interface StatusSubscriptionsTable {
  id: string;
  channel: 'email' | 'webhook';
  destination: string;
  /** The destination as compared for "the same subscription" (an address's domain in lower case). */
  destination_key: string;
  state: StatusSubscriptionState;
  /** SHA-256 of the verification token while one is outstanding. */
  verify_token_hash: string | null;
  verify_expires_at: number | null;
  /** Random input of the unsubscribe token (derived with the master key, so links can be rebuilt). */
  unsubscribe_nonce: string;
  unsubscribe_token_hash: string | null;
  /** A webhook subscription's `whsec_` signing secret, sealed with the master key. */
  secret_sealed: string | null;
  /** When the next webhook challenge is due; null when none is. */
  challenge_due_at: number | null;
  challenge_attempts: number;
  challenge_locked_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  verified_at: number | null;
  removed_at: number | null;
}

export type StatusNotificationState = 'pending' | 'sent' | 'failed' | 'dropped';

/** One update to one subscriber; unique per pair, so each subscriber hears of a change once. */
export interface StatusNotificationsTable {
  id: string;
  update_id: string;
  subscription_id: string;
  state: StatusNotificationState;
  attempts: number;
  due_at: number;
  locked_until: number | null;
  last_error: string | null;
  response_status: number | null;
  /** The message of an email notice in the send pipeline. */
  message_id: string | null;
  sent_at: number | null;
  created_at: number;
}
