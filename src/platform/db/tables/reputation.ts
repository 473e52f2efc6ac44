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
