/**
 * A message's status from its recipients' statuses (DESIGN.md §4). Pure: the outcome writer
 * counts the recipients and asks this, inside the transaction that changed them.
 *
 * - Some recipients still pending: `deferred` if any of them was deferred, else `sending` once
 *   any recipient has an outcome, else `queued`.
 * - Every recipient final: `delivered` when all reached the mailbox (a complaint came after
 *   delivery), `bounced` when none did and at least one bounced, `failed` when all failed,
 *   `suppressed` when all were held back, and `partially_delivered` for a mix.
 * - Every recipient cancelled (a scheduled send cancelled before its time): `cancelled`.
 */
import type { MessageStatus, RecipientStatus } from '../../platform/db/tables.js';

export type RecipientCounts = Readonly<Partial<Record<RecipientStatus, number>>>;

/**
 * @example messageStatus({ delivered: 2, bounced: 1 }) // 'partially_delivered'
 * @example messageStatus({ delivered: 1, deferred: 1 }) // 'deferred'
 */
export function messageStatus(counts: RecipientCounts): MessageStatus {
  const n = (status: RecipientStatus) => counts[status] ?? 0;
  const reached = n('delivered') + n('complained');
  const notReached = n('bounced') + n('failed') + n('suppressed');
  if (n('queued') + n('deferred') > 0) {
    if (n('deferred') > 0) return 'deferred';
    return reached + notReached > 0 ? 'sending' : 'queued';
  }
  if (reached > 0) return notReached > 0 ? 'partially_delivered' : 'delivered';
  if (n('bounced') > 0) return 'bounced';
  if (n('failed') > 0) return 'failed';
  if (n('suppressed') > 0) return 'suppressed';
  if (n('cancelled') > 0) return 'cancelled';
  // No recipients at all cannot come from the send API; leave it visibly unfinished.
  return 'queued';
}

/** Statuses after which a recipient is never tried again. */
export const FINAL_RECIPIENT_STATUSES: readonly RecipientStatus[] = [
  'delivered',
  'bounced',
  'complained',
  'suppressed',
  'failed',
  'cancelled',
];

/**
 * Statuses after which nothing of the message is sent again (every recipient final, or the send
 * never went out); migration 0019's trigger drops a message's stored rendering on these.
 */
export const FINAL_MESSAGE_STATUSES: readonly MessageStatus[] = [
  'delivered',
  'partially_delivered',
  'bounced',
  'failed',
  'cancelled',
  'rejected',
  'suppressed',
];
