/**
 * What the processor does with one spooled transaction, in its two halves: `prepare` works out
 * everything that can be known before the database transaction (parsing, authentication and
 * report reading on the analyzer's threads, the lookups of feedback), and `write` only writes,
 * inside the group commit's transaction: the received messages, the feedback effects and the
 * receipt. A transaction given up on (`failed`) writes its receipt with the reason and, when it is
 * `kept`, the message stored without processing for each project it was routed to
 * (`processor-poison.ts`).
 */
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import type { Analyzer } from './analysis/analyzer.js';
import type { AuthResults } from './analysis/authenticate.js';
import type { ParsedInbound } from './analysis/parse.js';
import type { InboundRecipient } from './listener/recipients.js';
import type { SpoolEnvelope, SpooledMessage } from './listener/spool.js';
import type { FeedbackHandler } from './reports/feedback.js';
import type { InboundStore } from './store.js';
import { type RoutedDelivery, storeReceived } from './threads/received.js';
import type { Threads } from './threads/threads.js';

/** The broadcasts capability's handling of a mail to an unsubscribe address. */
export interface UnsubscribePort {
  isAddress(address: string): boolean;
  byMail(address: string, sender: string): Promise<unknown>;
}

export type Effects = Awaited<ReturnType<ReturnType<typeof createPreparer>>>;

/** A transaction ready to commit: its effects, or the reason it was given up on. */
export type Prepared =
  | { readonly id: string; readonly spooled: SpooledMessage; readonly effects: Effects }
  | {
      readonly id: string;
      readonly failed: string;
      /** Undefined when even the envelope could not be read. */
      readonly envelope: SpoolEnvelope | undefined;
      readonly size: number;
      /** The message as read without processing it (header fields, whole as one attachment): store it. */
      readonly kept?: { readonly raw: Buffer; readonly mail: ParsedInbound } | undefined;
    };

/** The authentication of a message stored without processing: none was run. */
const NOT_CHECKED: AuthResults = {
  spf: null,
  dkim: [],
  dmarc: null,
  arc: null,
  authentication_results: '',
  error: 'not checked: the message was stored without processing',
};

/** Everything that can be worked out before the transaction: parsing, authentication, report reading. */
export function createPreparer(deps: {
  readonly analyzer: Analyzer;
  readonly feedback: FeedbackHandler;
  readonly unsubscribe?: UnsubscribePort | undefined;
}) {
  return async ({ envelope, raw }: SpooledMessage) => {
    // A mail to a broadcast's unsubscribe address unsubscribes at once: the effect is the
    // broadcasts capability's own transaction, and doing it twice (a crash before the receipt)
    // changes nothing.
    const unsubscribed: string[] = [];
    for (const recipient of envelope.recipients) {
      if (recipient.kind !== 'unsubscribe' || deps.unsubscribe === undefined) continue;
      await deps.unsubscribe.byMail(recipient.address, envelope.mailFrom);
      unsubscribed.push(recipient.address);
    }
    const routed = routedDeliveries(envelope.recipients);
    const facts = { ip: envelope.remoteIp, helo: envelope.helo, mailFrom: envelope.mailFrom };
    const reports = envelope.recipients.some((r) => r.kind === 'bounce' || r.kind === 'complaint');
    // Reports are read on the analyzer's threads too: never a whole message on the event loop.
    const analyzed =
      routed.length > 0 || reports
        ? await deps.analyzer.analyze(raw, facts, { mail: routed.length > 0, reports })
        : undefined;
    const feedback = await deps.feedback.read({
      recipients: envelope.recipients,
      mailFrom: envelope.mailFrom,
      reports: analyzed?.reports ?? null,
      auth: analyzed?.auth ?? null,
      at: envelope.receivedAt,
    });
    return { routed, mail: analyzed?.mail ?? undefined, auth: analyzed?.auth, feedback, unsubscribed };
  };
}

/** Returns the writer of one prepared transaction; it resolves with the attachments it stored. */
export function createWriter(deps: {
  readonly store: InboundStore;
  readonly threads: Threads;
  readonly events: EventService;
  readonly feedback: FeedbackHandler;
}) {
  return async function write(trx: Db, prepared: Prepared): Promise<number> {
    if ('failed' in prepared) {
      const { envelope, kept } = prepared;
      const received: Record<string, string> = {};
      if (kept !== undefined && envelope !== undefined) {
        for (const delivery of routedDeliveries(envelope.recipients)) {
          const stored = await storeReceived(trx, deps, {
            envelope,
            size: kept.raw.length,
            delivery,
            mail: kept.mail,
            auth: NOT_CHECKED,
            processingError: prepared.failed,
          });
          received[delivery.projectId] = stored.id;
        }
      }
      await deps.store.insertReceipt(trx, {
        id: prepared.id,
        kind: 'failed',
        mail_from: envelope?.mailFrom ?? '',
        rcpt_to: JSON.stringify(envelope?.recipients.map((r) => r.address) ?? []),
        remote_ip: envelope?.remoteIp ?? '',
        size_bytes: prepared.size,
        outcome: JSON.stringify({
          failed: prepared.failed,
          ...(Object.keys(received).length > 0 ? { received } : {}),
        }),
        received_at: envelope?.receivedAt ?? Date.now(),
        processed_at: Date.now(),
      });
      return 0;
    }
    const { id, spooled, effects } = prepared;
    let attachments = 0;
    const outcome: Record<string, unknown> = {};
    for (const delivery of effects.routed) {
      const stored = await storeReceived(trx, deps, {
        envelope: spooled.envelope,
        size: spooled.raw.length,
        delivery,
        mail: effects.mail as NonNullable<typeof effects.mail>,
        auth: effects.auth as NonNullable<typeof effects.auth>,
      });
      attachments += stored.attachments;
      outcome[delivery.projectId] = stored.id;
    }
    const feedback = await deps.feedback.apply(trx, effects.feedback);
    await deps.store.insertReceipt(trx, {
      id,
      kind:
        effects.routed.length > 0
          ? 'routed'
          : effects.unsubscribed.length > 0 && feedback.kind === 'none'
            ? 'unsubscribe'
            : feedback.kind,
      mail_from: spooled.envelope.mailFrom,
      rcpt_to: JSON.stringify(spooled.envelope.recipients.map((r) => r.address)),
      remote_ip: spooled.envelope.remoteIp,
      size_bytes: spooled.raw.length,
      outcome: JSON.stringify({
        received: outcome,
        ...feedback.summary,
        ...(effects.unsubscribed.length > 0 ? { unsubscribed: effects.unsubscribed } : {}),
      }),
      received_at: spooled.envelope.receivedAt,
      processed_at: Date.now(),
    });
    return attachments;
  };
}

/** Routed recipients grouped by project: one stored message per project. */
function routedDeliveries(recipients: readonly InboundRecipient[]): RoutedDelivery[] {
  const byProject = new Map<string, { routeId: string; rcptTo: string[] }>();
  for (const recipient of recipients) {
    if (recipient.kind !== 'route') continue;
    const entry = byProject.get(recipient.projectId);
    if (entry) entry.rcptTo.push(recipient.address);
    else byProject.set(recipient.projectId, { routeId: recipient.routeId, rcptTo: [recipient.address] });
  }
  return [...byProject].map(([projectId, entry]) => ({ projectId, ...entry }));
}
