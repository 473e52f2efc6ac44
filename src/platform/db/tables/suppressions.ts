/**
 * Row type of the suppression list.
 */
import type { KeyMode } from './accounts.js';

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
  /** The list it is on: a test-mode suppression applies to test sends only (migration 0020). */
  mode: KeyMode;
  /** normalizeEmail() of the address: what every lookup matches. */
  email: string;
  reason: SuppressionReason;
  /** Who put it there: api, bounce, complaint, unsubscribe, operator, validation. */
  source: string;
  message_id: string | null;
  created_at: number;
  updated_at: number;
}
