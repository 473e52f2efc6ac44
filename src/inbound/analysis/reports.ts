/**
 * Reads the machine-readable report in mail sent to a bounce or complaint address: a delivery
 * status notification (RFC 3464) or a complaint (ARF, RFC 5965). Runs on the analyzer's worker
 * threads beside authentication, never on the event loop, and its work is bounded by `mime.ts`'s
 * caps whatever the message holds. What a report means is decided by `feedback.ts`.
 */
import { arfOf, type FeedbackReport } from './arf.js';
import { type DeliveryReport, dsnOf } from './dsn.js';
import { findReport } from './mime.js';

export interface Reports {
  readonly dsn: DeliveryReport | null;
  readonly arf: FeedbackReport | null;
}

/** The DSN or ARF report the message carries; both null for anything else (an auto-reply, say). */
export function readReports(raw: Buffer): Reports {
  const report = findReport(raw);
  if (!report) return { dsn: null, arf: null };
  return { dsn: dsnOf(report) ?? null, arf: arfOf(report) ?? null };
}
