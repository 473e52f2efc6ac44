/**
 * Room `delivery/replies/`, the vocabulary under every stage of delivery. What a receiving server
 * said and what it means: the reply grammar (smtp-reply.ts), the rule tables and the classifier
 * (bounce-rules.ts, bounce-classifier.ts), and this closed set of outcomes that routing, the SMTP
 * transaction and the sandbox return and outcomes/ records. Inbound's DSN reading speaks it too.
 *
 * It must never do I/O, read the clock or the config, or import another room: every room after it
 * imports it.
 *
 * What a delivery step returns: `continue`, or a terminal outcome for every recipient of the job,
 * or (from the SMTP transaction) one outcome per recipient. The four outcomes are a closed set,
 * each carrying the SMTP reply that decided it (a real one, or a synthetic one written the way a
 * server would have written it for failures without a reply: a refused connection, a null MX).
 * One record shape for every result, as KumoMTA logs them.
 */
import {
  type BounceClass,
  classifyReply,
  classifyTransportFailure,
  type TransportFailure,
  transportFailureOf,
} from './bounce-classifier.js';
import { hardWhenPermanent } from './bounce-rules.js';
import { parseSmtpReply, type SmtpError, type SmtpReply, smtpReply } from './smtp-reply.js';

export type Outcome =
  | {
      readonly kind: 'delivered';
      readonly reply: SmtpReply;
      /** The sandbox's complaint@ recipient: delivered, then complained about. */
      readonly complained?: true;
    }
  | { readonly kind: 'deferred'; readonly reply: SmtpReply; readonly class: BounceClass }
  | { readonly kind: 'bounced'; readonly reply: SmtpReply; readonly class: BounceClass }
  | { readonly kind: 'failed'; readonly reply: SmtpReply; readonly reason: string };

/** Outcomes of one transaction, keyed by the recipient address as given to RCPT TO (lower case). */
export interface PerRecipient {
  readonly kind: 'per_recipient';
  readonly outcomes: ReadonlyMap<string, Outcome>;
}

/**
 * A job a stop cut off after some of its transactions had ended (steps.ts chunks, recipient-limit.ts
 * follow-ups): the outcomes of the recipients those transactions answered. The job's other
 * recipients go back to the queue with it, untouched, like a released job (no event, no attempt);
 * so do those refused as over the server's limit whose follow-up never ran (a refusal that says
 * nothing about the recipient).
 */
export interface CutOff {
  readonly kind: 'cut_off';
  readonly outcomes: ReadonlyMap<string, Outcome>;
}

export const CONTINUE = 'continue' as const;

/** The engine is stopping: the job goes back to the queue untouched, with no event. */
export const RELEASED = { kind: 'released' } as const;

/** A step's result: go on, one outcome for every recipient, one per recipient, or give the job back. */
export type StepResult = typeof CONTINUE | Outcome | PerRecipient | typeof RELEASED;

/** The outcome a reply gives (RFC 5321 §4.2.1 classes, refined by bounce-classifier.ts). */
export function outcomeOfReply(reply: SmtpReply): Outcome {
  const cls = classifyReply(reply);
  if (cls.outcome === 'delivered') return { kind: 'delivered', reply };
  return { kind: cls.outcome, reply, class: cls };
}

/** The outcome of a failure without a reply, with a synthetic reply naming it. */
export function outcomeOfTransport(failure: TransportFailure, text: string): Outcome {
  const cls = classifyTransportFailure(failure);
  const code = cls.outcome === 'deferred' ? 451 : failure === 'null_mx' ? 556 : 550;
  const reply = smtpReply(code, `${cls.status} ${oneLine(text)}`);
  return cls.outcome === 'deferred'
    ? { kind: 'deferred', reply, class: cls }
    : { kind: 'bounced', reply, class: cls };
}

/**
 * The outcome of an error from an SMTP connection: the server's reply when there was one (a 421
 * greeting, a refused MAIL FROM), else the transport failure behind it.
 */
export function outcomeOfError(err: unknown): Outcome {
  const error = err as SmtpError;
  // A STARTTLS that was required but refused or failed: the server's reply to STARTTLS says
  // nothing about the recipient, so it must never bounce (RFC 3207 §4, RFC 8461 §5).
  if (error?.code === 'ETLS' || error?.code === 'EREQUIRETLS') {
    const unavailable = typeof error.response === 'string' && error.response !== '';
    return outcomeOfTransport(unavailable ? 'tls_unavailable' : 'tls_failed', error.message);
  }
  const reply = typeof error?.response === 'string' ? parseSmtpReply(error.response) : null;
  if (reply !== null && reply.code >= 400) {
    const outcome = outcomeOfReply(reply);
    if (error.command === 'MAIL FROM') return aboutOurSender(outcome);
    return outcome.kind === 'bounced' && refusesSession(error) ? asDeferral(outcome) : outcome;
  }
  if (error?.code === 'EMESSAGE' && /size/i.test(error.message)) {
    // nodemailer refuses before MAIL FROM when the message exceeds the server's SIZE (RFC 1870).
    return outcomeOfReply(smtpReply(552, `5.3.4 ${oneLine(error.message)}`));
  }
  const message = error instanceof Error ? error.message : String(err);
  return outcomeOfTransport(transportFailureOf(err), message);
}

/**
 * A 5xx greeting (RFC 5321 §3.1: "no SMTP service here") or a refused EHLO/HELO answers our
 * session, before any recipient is named: it says nothing about the address. The lane tries the
 * next MX host; when none is left the job is deferred and retried, and bounces (never as hard)
 * only when its maximum age runs out. Postfix does the same by default (`smtp_skip_5xx_greeting`).
 * A refusal that names a block list still flags the lane (its category is kept).
 */
function refusesSession(error: SmtpError): boolean {
  return error.command === 'CONN' || error.command === 'EHLO' || error.command === 'HELO';
}

/**
 * A refused MAIL FROM is about the reverse-path, our VERP address (RFC 3463 X.1.7, X.1.8): it
 * says nothing about the recipients' addresses, whatever code the server chose for it (Postfix's
 * `reject_unverified_sender` answers 550 5.1.1 "Sender address rejected"). A cause that would
 * suppress the recipients (unknown mailbox or domain, an unexplained 5xx) becomes `policy`, which
 * is never hard and never counts towards `repeated_soft_bounce`; the outcome stays as given.
 */
function aboutOurSender(outcome: Outcome): Outcome {
  if (outcome.kind !== 'bounced' && outcome.kind !== 'deferred') return outcome;
  const category = outcome.class.category;
  if (category === null || !hardWhenPermanent[category]) return outcome;
  return { ...outcome, class: { ...outcome.class, category: 'policy', hard: false } };
}

function asDeferral(outcome: Extract<Outcome, { kind: 'bounced' }>): Outcome {
  return {
    kind: 'deferred',
    reply: outcome.reply,
    class: { ...outcome.class, outcome: 'deferred', hard: false },
  };
}

/** A failure that retrying cannot fix and that is ours, not the recipient's (e.g. no message to send). */
export function failed(reason: string): Outcome {
  return { kind: 'failed', reason, reply: smtpReply(554, `5.3.0 ${oneLine(reason)}`) };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 400);
}
