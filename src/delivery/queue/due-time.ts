/**
 * When a message became due for delivery: its `send_at` when it was scheduled, else the moment the
 * send API accepted it. The maximum age (retry-policy.ts), the Date header and the latency of
 * `email.delivered` all count from here, so a send scheduled days ahead is neither past its
 * deadline nor dated in the past when it finally goes out. It never reads the clock.
 *
 * @example dueTime({ send_at: null, created_at: 1_700_000_000_000 }) // 1_700_000_000_000
 */
import type { MessageRow } from './store-rows.js';

export function dueTime(message: Pick<MessageRow, 'send_at' | 'created_at'>): number {
  return message.send_at ?? message.created_at;
}
