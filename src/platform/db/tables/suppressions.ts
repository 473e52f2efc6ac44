/**
 * Row type of the suppression list.
 */

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
