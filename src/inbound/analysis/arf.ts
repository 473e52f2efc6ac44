/**
 * Reads an Abuse Reporting Format complaint (RFC 5965): the machine-readable fields of the
 * `message/feedback-report` part and the headers of the reported message, which is what maps the
 * complaint back to a message Posthorn sent (its VERP Original-Mail-From, its Message-ID) and to
 * the recipient who complained (Original-Rcpt-To, else the reported message's To).
 */
import { messageIdOf, typedAddress } from './dsn.js';
import { fieldBlocks, headerValue, originalHeaders, type Report } from './mime.js';

export interface FeedbackReport {
  /** abuse, fraud, virus, other, not-spam, auth-failure (RFC 5965 §7.3). */
  readonly feedbackType: string;
  readonly userAgent: string | null;
  readonly arrivalDate: string | null;
  readonly sourceIp: string | null;
  readonly reportedDomain: string | null;
  /** The reported message's envelope sender: Posthorn's VERP Return-Path. */
  readonly originalMailFrom: string | null;
  readonly originalRcptTo: readonly string[];
  /** From the reported message's headers (the report may carry only those). */
  readonly originalMessageId: string | null;
  readonly originalReturnPath: string | null;
  readonly originalTo: readonly string[];
}

/** The complaint a `multipart/report` carries, or undefined when it is another kind of report. */
export function arfOf(report: Report): FeedbackReport | undefined {
  if (report.reportType !== 'feedback-report') return undefined;
  const feedback = report.parts.find((part) => part.type === 'message/feedback-report');
  if (!feedback) return undefined;
  const fields = new Map<string, string[]>();
  for (const block of fieldBlocks(feedback.body)) {
    for (const [name, values] of block) {
      const known = fields.get(name);
      if (known) known.push(...values);
      else fields.set(name, [...values]);
    }
  }
  const first = (name: string): string | null => fields.get(name)?.[0]?.trim() ?? null;
  const headers = originalHeaders(report.parts) ?? [];
  return {
    feedbackType: (first('feedback-type') ?? 'abuse').toLowerCase(),
    userAgent: first('user-agent'),
    arrivalDate: first('arrival-date') ?? first('received-date'),
    sourceIp: first('source-ip'),
    reportedDomain: first('reported-domain'),
    originalMailFrom: typedAddress(first('original-mail-from')),
    originalRcptTo: (fields.get('original-rcpt-to') ?? [])
      .map(typedAddress)
      .filter((a): a is string => a !== null),
    originalMessageId: messageIdOf(headerValue(headers, 'message-id')),
    originalReturnPath: typedAddress(headerValue(headers, 'return-path') ?? null),
    originalTo: addressesIn(headerValue(headers, 'to') ?? ''),
  };
}

/** Bare addresses in an address-list header value ("Bob <bob@x.example>, c@y.example"). */
function addressesIn(value: string): string[] {
  const angle = [...value.matchAll(/<([^<>\s]+@[^<>\s]+)>/g)].map((match) => match[1] as string);
  if (angle.length > 0) return angle;
  return [...value.matchAll(/[^\s,;<>"]+@[^\s,;<>"]+/g)].map((match) => match[0]);
}
