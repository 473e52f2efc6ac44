/**
 * Reads a delivery status notification (RFC 3464): per recipient, the final (and original)
 * recipient address, the Action, the Status and the Diagnostic-Code; and the Message-ID of the
 * returned message when the DSN includes it. What each recipient's result means is decided by the
 * delivery engine's bounce classifier, not here.
 */
import { fieldBlocks, headerValue, originalHeaders, type Report } from './mime.js';

export type DsnAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded';

export interface DsnRecipient {
  /** The address the reporting MTA tried (Final-Recipient), without its address type. */
  readonly finalRecipient: string | null;
  /** The address as the original sender gave it (Original-Recipient), when reported. */
  readonly originalRecipient: string | null;
  readonly action: DsnAction | null;
  /** RFC 3463 status, e.g. "5.1.1". */
  readonly status: string;
  /** e.g. "smtp; 550 5.1.1 <bob@example.net>: Recipient address rejected". */
  readonly diagnosticCode: string;
  readonly remoteMta: string | null;
  /** Will-Retry-Until of a `delayed` report (RFC 3464 §2.3.9), as written. */
  readonly willRetryUntil: string | null;
}

export interface DeliveryReport {
  readonly reportingMta: string | null;
  readonly recipients: readonly DsnRecipient[];
  /** Message-ID of the returned message (angle brackets removed), when it came back with the DSN. */
  readonly originalMessageId: string | null;
}

const ACTIONS: readonly DsnAction[] = ['failed', 'delayed', 'delivered', 'relayed', 'expanded'];

/** The DSN a `multipart/report` carries, or undefined when it is another kind of report. */
export function dsnOf(report: Report): DeliveryReport | undefined {
  if (report.reportType !== 'delivery-status') return undefined;
  const status = report.parts.find(
    (part) => part.type === 'message/delivery-status' || part.type === 'message/global-delivery-status',
  );
  if (!status) return undefined;
  const [perMessage, ...perRecipient] = fieldBlocks(status.body);
  const first = (block: Map<string, string[]> | undefined, name: string): string | null =>
    block?.get(name)?.[0] ?? null;
  const recipients = perRecipient
    .filter((block) => block.has('final-recipient') || block.has('original-recipient'))
    .map((block): DsnRecipient => {
      const action = (first(block, 'action') ?? '').toLowerCase().split(/\s/)[0] as DsnAction;
      return {
        finalRecipient: typedAddress(first(block, 'final-recipient')),
        originalRecipient: typedAddress(first(block, 'original-recipient')),
        action: ACTIONS.includes(action) ? action : null,
        status: (first(block, 'status') ?? '').trim(),
        diagnosticCode: first(block, 'diagnostic-code') ?? '',
        remoteMta: typedAddress(first(block, 'remote-mta')),
        willRetryUntil: first(block, 'will-retry-until'),
      };
    });
  const headers = originalHeaders(report.parts);
  return {
    reportingMta: typedAddress(first(perMessage, 'reporting-mta')),
    recipients,
    originalMessageId: headers ? messageIdOf(headerValue(headers, 'message-id')) : null,
  };
}

/** "rfc822; bob@example.net" → "bob@example.net" (RFC 3464 §2.3.2: address-type ";" address). */
export function typedAddress(value: string | null): string | null {
  if (value === null) return null;
  const semicolon = value.indexOf(';');
  const address = (semicolon >= 0 ? value.slice(semicolon + 1) : value).trim().replace(/^<|>$/g, '');
  return address === '' ? null : address;
}

/** "<abc@example.com>" → "abc@example.com". */
export function messageIdOf(value: string | undefined | null): string | null {
  if (!value) return null;
  const match = /<([^<>\s]+)>/.exec(value);
  const id = (match ? match[1] : value.trim()) ?? '';
  return id === '' ? null : id;
}
