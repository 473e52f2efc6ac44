/**
 * Row types of the analytics projection, built from the event log only.
 */
import type { KeyMode } from './accounts.js';
import type { JsonText } from './columns.js';

/** The analytics projection of one recipient of one message (its current outcome). */
export interface AnalyticsRecipientsTable {
  message_id: string;
  recipient: string;
  project_id: string;
  /** The mode of the key the message was sent with (migration 0012). */
  mode: KeyMode;
  /** UTC day number (ms / 86 400 000) the message was accepted. */
  day: number;
  /** Provider lane, '' until the delivery engine reports one. */
  lane: string;
  status: string;
  queued_at: number | null;
  delivered_at: number | null;
  latency_ms: number | null;
  opened: number;
  clicked: number;
  /** Opens and clicks machines made (migration 0023a), left out of `opened` and `clicked`. */
  machine_opens: number;
  machine_clicks: number;
  updated_at: number;
}

/** Counters per project, key mode, acceptance day and lane; `latency` is a JSON histogram. */
export interface AnalyticsDailyTable {
  project_id: string;
  mode: KeyMode;
  day: number;
  lane: string;
  accepted: number;
  queued: number;
  deferred: number;
  delivered: number;
  bounced: number;
  complained: number;
  failed: number;
  suppressed: number;
  unique_opens: number;
  unique_clicks: number;
  /** Machine opens and clicks (events) of the row's recipients (migration 0023a). */
  machine_opens: number;
  machine_clicks: number;
  latency: JsonText;
}
