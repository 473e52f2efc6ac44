/**
 * Room `inbound/reports/`, after analysis, for mail about mail Posthorn sent. A DSN or complaint
 * mapped back to the message and recipient it is about (this file), acted on only when the evidence
 * proves that recipient (feedback-proof.ts), and applied with the delivery engine's own writes
 * (feedback-apply.ts, dsn-outcome.ts, sent-mail.ts), so an asynchronous bounce looks like a
 * synchronous one.
 *
 * It must never act on what a report says about itself without that proof, nor write outside its
 * caller's transaction.
 *
 * Mail about mail Posthorn sent: delivery status notifications (RFC 3464) and complaint reports
 * (ARF, RFC 5965), mapped back to the message and the recipient they are about.
 *
 * - A DSN arrives at a VERP address (the Return-Path of the transaction, `src/delivery/smtp/verp.ts`),
 *   which names the message and the recipients of that transaction; each reported recipient is
 *   matched by its Final-Recipient (else Original-Recipient) address, or is the transaction's only
 *   recipient. Its Status and Diagnostic-Code are classified by the delivery engine's classifier
 *   (`classifyDsn`), and the outcome is written by the delivery engine's outcome writer, so an
 *   asynchronous bounce has the same table, events and suppression as a synchronous one.
 * - A complaint arrives at the complaint (FBL) address or at a VERP address. The message is found
 *   from the VERP address it was sent to, else the report's Original-Mail-From / the returned
 *   Return-Path (VERP), else the returned Message-ID (`<msg_...@domain>`); the recipient from
 *   Original-Rcpt-To, else the returned To, else the transaction's only recipient.
 *
 * A report acts only on a recipient its evidence proves (`feedback-proof.ts`): one it cannot
 * prove (a forged complaint naming another recipient of a message, say) changes nothing.
 *
 * `read` does every lookup before the database transaction; `apply` (`feedback-apply.ts`) only
 * writes, inside it. Anything else sent to these addresses (auto-replies, unreadable reports,
 * reports about recipients they do not prove) is recorded as ignored.
 */
import { type BounceClass, classifyDsn } from '../../delivery/replies/bounce-classifier.js';
import type { Db } from '../../platform/db/database.js';
import { normalizeEmail } from '../../platform/normalize-email.js';
import type { FeedbackReport } from '../analysis/arf.js';
import type { AuthResults } from '../analysis/authenticate.js';
import type { DeliveryReport, DsnRecipient } from '../analysis/dsn.js';
import type { Reports } from '../analysis/reports.js';
import type { BounceTarget, InboundRecipient } from '../listener/recipients.js';
import { outboundIdOf } from '../threads/outbound.js';
import { applyPlan } from './feedback-apply.js';
import { createRecipientProof, type ReportEvidence } from './feedback-proof.js';
import type { SentMessage } from './sent-mail.js';

/** One DSN verdict for one recipient of a sent message. */
export interface DsnOutcome {
  readonly message: SentMessage;
  readonly recipient: { readonly id: string; readonly email: string };
  readonly bounce: BounceClass;
  readonly report: DsnRecipient;
  readonly reportingMta: string | null;
  readonly at: number;
}

export interface ComplaintOutcome {
  readonly message: SentMessage;
  readonly recipient: { readonly id: string; readonly email: string };
  readonly report: FeedbackReport;
  readonly at: number;
}

export interface FeedbackPorts {
  /** The sent message and recipients a VERP address names (its tag verified), or undefined. */
  bounceTarget(address: string): Promise<BounceTarget | undefined>;
  sentMessage(messageId: string): Promise<SentMessage | undefined>;
  /** The delivery engine's writer for an asynchronous bounce or delay (inside `trx`). */
  recordDsn(trx: Db, outcome: DsnOutcome): Promise<void>;
  /**
   * Recipient `complained`, `email.complained`, suppression `spam_complaint` (inside `trx`); or
   * nothing, with the reason, when the recipient cannot complain (already complained, bounced).
   */
  recordComplaint(trx: Db, outcome: ComplaintOutcome): Promise<{ skipped?: string }>;
}

/** Reported addresses that were not acted on: not a recipient, or a recipient not proven. */
interface Passed {
  readonly unmatched: readonly string[];
  readonly unproven: readonly string[];
}

export type FeedbackPlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'ignored'; readonly reason: string; readonly details?: Record<string, unknown> }
  | ({ readonly kind: 'dsn'; readonly outcomes: readonly DsnOutcome[] } & Passed)
  | ({ readonly kind: 'arf'; readonly complaints: readonly ComplaintOutcome[] } & Passed);

/** One transaction to a bounce or complaint address, as the analyzer read it. */
export interface FeedbackInput {
  readonly recipients: readonly InboundRecipient[];
  /** MAIL FROM; '' is the null reverse-path. */
  readonly mailFrom: string;
  /** The DSN or ARF report in the message (`reports.ts`), null when not read. */
  readonly reports: Reports | null;
  /** Its SPF, DKIM and DMARC results, null when not checked. */
  readonly auth: AuthResults | null;
  readonly at: number;
}

export interface FeedbackHandler {
  read(input: FeedbackInput): Promise<FeedbackPlan>;
  apply(trx: Db, plan: FeedbackPlan): Promise<{ kind: string; summary: Record<string, unknown> }>;
}

export const NOT_PROVEN = 'recipient not proven';

type Target = BounceTarget & { readonly message: SentMessage };

/** DSN blocks looked at beyond the transaction's recipient count (aliases, forwarding). */
const SPARE_BLOCKS = 10;
/** Unmatched addresses kept in a receipt. */
const MAX_LISTED = 20;

const listCapped = (list: string[], value: string) => {
  if (list.length < MAX_LISTED) list.push(value);
};

export function createFeedbackHandler(
  ports: FeedbackPorts,
  options: { readonly feedbackLoopDomains: readonly string[] },
): FeedbackHandler {
  const proves = createRecipientProof(options.feedbackLoopDomains);

  const withMessage = async (target: BounceTarget | undefined): Promise<Target | undefined> => {
    if (!target) return undefined;
    const message = await ports.sentMessage(target.messageId);
    return message && message.projectId === target.projectId ? { ...target, message } : undefined;
  };

  function readDsn(
    targets: readonly Target[],
    report: DeliveryReport,
    evidence: ReportEvidence,
    at: number,
  ): FeedbackPlan {
    // One outcome per recipient, however many blocks name it (a failure outranks a delay), and
    // no more blocks looked at than the transaction could have had recipients.
    const chosen = new Map<string, DsnOutcome>();
    const unmatched: string[] = [];
    const unproven: string[] = [];
    const recipientCount = targets.reduce((sum, target) => sum + target.recipients.length, 0);
    let considered = 0;
    for (const entry of report.recipients) {
      if (entry.action !== 'failed' && entry.action !== 'delayed') continue;
      if (++considered > recipientCount + SPARE_BLOCKS) break;
      const match = matchRecipient(targets, [entry.finalRecipient, entry.originalRecipient]);
      if (!match) {
        listCapped(unmatched, entry.finalRecipient ?? entry.originalRecipient ?? '');
        continue;
      }
      if (!proves('dsn', match.recipient.email, match.target.recipients.length, evidence)) {
        if (!unproven.includes(match.recipient.email)) listCapped(unproven, match.recipient.email);
        continue;
      }
      const earlier = chosen.get(match.recipient.id);
      if (earlier && !(earlier.bounce.outcome === 'deferred' && entry.action === 'failed')) continue;
      chosen.set(match.recipient.id, {
        message: match.target.message,
        recipient: match.recipient,
        bounce: dsnClass(entry),
        report: entry,
        reportingMta: report.reportingMta,
        at,
      });
    }
    if (chosen.size === 0 && unproven.length > 0)
      return { kind: 'ignored', reason: NOT_PROVEN, details: { unproven, unmatched } };
    return { kind: 'dsn', outcomes: [...chosen.values()], unmatched, unproven };
  }

  async function readArf(
    targets: readonly Target[],
    report: FeedbackReport,
    evidence: ReportEvidence,
    at: number,
  ): Promise<FeedbackPlan> {
    if (report.feedbackType === 'not-spam') return { kind: 'ignored', reason: 'not-spam feedback' };
    const found = targets.length > 0 ? targets : await targetsOfReport(report);
    // Original-Rcpt-To names the complainant; the reported To may list others as well.
    const match = matchRecipient(
      found,
      report.originalRcptTo.length > 0 ? report.originalRcptTo : report.originalTo,
    );
    if (!match)
      return {
        kind: 'arf',
        complaints: [],
        unmatched: [report.originalRcptTo[0] ?? report.originalMessageId ?? ''],
        unproven: [],
      };
    if (!proves('arf', match.recipient.email, match.target.recipients.length, evidence))
      return {
        kind: 'ignored',
        reason: NOT_PROVEN,
        details: { message_id: match.target.messageId, unproven: [match.recipient.email] },
      };
    return {
      kind: 'arf',
      complaints: [{ message: match.target.message, recipient: match.recipient, report, at }],
      unmatched: [],
      unproven: [],
    };
  }

  /** Where a report sent to the complaint address points: its VERP return path, else its Message-ID. */
  async function targetsOfReport(report: FeedbackReport): Promise<Target[]> {
    for (const address of [report.originalMailFrom, report.originalReturnPath]) {
      if (!address) continue;
      const target = await withMessage(await ports.bounceTarget(address));
      if (target) return [target];
    }
    const id = report.originalMessageId ? outboundIdOf(report.originalMessageId) : undefined;
    const message = id ? await ports.sentMessage(id) : undefined;
    if (!message) return [];
    return [
      { projectId: message.projectId, messageId: message.messageId, recipients: message.recipients, message },
    ];
  }

  return {
    async read({ recipients, reports, mailFrom, auth, at }) {
      const bounceAddresses = recipients.filter((r) => r.kind === 'bounce');
      const complaint = recipients.some((r) => r.kind === 'complaint');
      if (bounceAddresses.length === 0 && !complaint) return { kind: 'none' };
      const targets: Target[] = [];
      for (const recipient of bounceAddresses) {
        if (targets.some((t) => t.messageId === recipient.messageId)) continue;
        const target = await withMessage(recipient);
        if (target) targets.push(target);
      }
      const evidence = { mailFrom, auth };
      if (bounceAddresses.length > 0 && reports?.dsn) return readDsn(targets, reports.dsn, evidence, at);
      if (reports?.arf) return readArf(targets, reports.arf, evidence, at);
      return { kind: 'ignored', reason: 'neither a delivery status notification nor a feedback report' };
    },

    apply: (trx, plan) => applyPlan(ports, trx, plan),
  };
}

/**
 * The delivery engine's classification of a DSN recipient, with the DSN's Action deciding the
 * outcome (RFC 3464 §2.3.3): `failed` is final whatever the Status class says, `delayed` is not.
 *
 * A `failed` recipient whose Status is not permanent (class 4: an MTA that gave up when its queue
 * lifetime ran out, say) is a soft bounce, as the delivery engine's own expiry is (`expired`,
 * 5.4.7, never hard): the address may be fine and the server only unreachable. It counts toward
 * `repeated_soft_bounce` like any soft bounce.
 */
export function dsnClass(entry: DsnRecipient): BounceClass {
  const cls = classifyDsn(entry.status, entry.diagnosticCode);
  if (entry.action === 'delayed') return { ...cls, outcome: 'deferred', hard: false };
  if (cls.outcome === 'bounced') return cls;
  return { ...cls, outcome: 'bounced', category: cls.category ?? 'other', hard: false };
}

function matchRecipient(
  targets: readonly Target[],
  reported: ReadonlyArray<string | null>,
): { target: Target; recipient: { id: string; email: string } } | undefined {
  const wanted = reported.flatMap((address) =>
    address ? [normalizeEmail(address) ?? address.toLowerCase()] : [],
  );
  // The reported addresses in the order given: the first one that is a recipient wins.
  for (const address of wanted) {
    for (const target of targets) {
      const recipient = target.recipients.find((r) => (normalizeEmail(r.email) ?? r.email) === address);
      if (recipient) return { target, recipient };
    }
  }
  // A forwarded or aliased address may be reported under another name: a transaction to a single
  // recipient can only be about that recipient.
  const only = targets.length === 1 ? targets[0] : undefined;
  if (only && only.recipients.length === 1)
    return { target: only, recipient: only.recipients[0] as { id: string; email: string } };
  return undefined;
}
