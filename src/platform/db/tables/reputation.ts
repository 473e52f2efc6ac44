/**
 * Row types of the reputation center (migration 0025 and its letters): the outcome projection.
 */

/** Outcome counts of one project, sending domain or lane, and UTC hour (ms / 3 600 000). */
export interface ReputationHourlyTable {
  project_id: string;
  /** `domain` (the From domain) or `lane` (the provider lane that carried the mail). */
  kind: 'domain' | 'lane';
  name: string;
  hour: number;
  delivered: number;
  /** Every permanent failure, blocks included. */
  bounced: number;
  /** Permanent failures that say the address is bad: the bounce rate's numerator. */
  hard_bounced: number;
  deferred: number;
  complained: number;
  /** Replies (temporary or permanent) that were a reputation block or a rate limit. */
  blocked: number;
  last_block_at: number | null;
  last_block_category: string | null;
  last_block_response: string | null;
  last_block_mx: string | null;
}

/** A project's request for a dedicated IP (migration 0025a). */
export interface DedicatedIpRequestsTable {
  id: string;
  project_id: string;
  monthly_volume: number;
  reason: string;
  status: 'pending' | 'approved' | 'declined';
  /** The operator's reason when declined. */
  review_note: string | null;
  reviewed_by: string | null;
  reviewed_at: number | null;
  /** The address assigned when approved. */
  ip: string | null;
  /** The warm-up plan's name when approved. */
  plan: string | null;
  created_at: number;
}

/** An address of delivery.source_ips that one project sends from, with its warm-up plan. */
export interface DedicatedIpAssignmentsTable {
  project_id: string;
  ip: string;
  request_id: string;
  plan_name: string;
  /** JSON array: messages per provider lane allowed on day 1, 2, ... of the warm-up. */
  daily_limits: string;
  started_at: number;
  created_at: number;
}

/** Recipients sent from an assigned address per UTC day (ms / 86 400 000) and lane. */
export interface DedicatedIpUsageTable {
  ip: string;
  day: number;
  lane: string;
  sent: number;
}

export type ReputationProvider = 'provider_a_postmaster' | 'provider_b_snds';

/** A project's connection to a mailbox provider's reputation data (migration 0025b). */
export interface ReputationConnectionsTable {
  id: string;
  project_id: string;
  provider: ReputationProvider;
  /** The credential, sealed with the master key (AAD: the connection's ID); never returned or logged. */
  credential_sealed: string;
  /** The user who connected it. */
  created_by: string | null;
  last_synced_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
  created_at: number;
}

/** One item a provider reported: `kind` `traffic` (per domain or IP and day) or `ip_status`. */
export interface ReputationProviderDataTable {
  connection_id: string;
  kind: string;
  /** The domain or IP (or IP range) the item is about. */
  subject: string;
  /** The day it covers, YYYY-MM-DD (UTC). */
  day: string;
  /** The item as JSON (see reputation/connections/providers). */
  data: string;
  fetched_at: number;
}
