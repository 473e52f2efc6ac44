/**
 * What one SMTP transaction's replies mean for each of its recipients: the reply to RCPT TO for a
 * recipient the server refused, else the reply to the end of DATA (RFC 5321 §4.1.1.4: it concerns
 * only the recipients accepted), or, when the transaction failed, the error that ended it.
 */
import type { Envelope, SmtpError, TransactionReplies } from './mx-connection.js';
import {
  type Outcome,
  outcomeOfError,
  outcomeOfReply,
  outcomeOfTransport,
  type PerRecipient,
} from '../replies/outcome.js';
import { parseSmtpReply, type SmtpReply } from '../replies/smtp-reply.js';

/** One outcome per recipient of a transaction that reached the end of DATA, in `to`'s order. */
export function outcomesOfReplies(to: readonly string[], replies: TransactionReplies): Map<string, Outcome> {
  const outcomes = new Map<string, Outcome>();
  const accepted = parseSmtpReply(replies.response) ?? parseSmtpReply('250 OK');
  for (const rcpt of to) outcomes.set(rcpt, outcomeOf(replies.rejected.get(rcpt) ?? null, accepted));
  return outcomes;
}

/**
 * A failed transaction. A recipient the server refused at RCPT TO keeps that reply; the others get
 * the error that ended the transaction (the reply to DATA concerns only the recipients accepted,
 * RFC 5321 §4.1.1.4). One outcome for all when nobody was refused at RCPT TO or MAIL FROM failed.
 */
export function resultOfError(err: SmtpError, envelope: Envelope): Outcome | PerRecipient {
  const rejected = err.rejectedErrors ?? [];
  const whole = outcomeOfError(err);
  if (rejected.length === 0 || err.command === 'MAIL FROM') return whole;
  const byRecipient = new Map(rejected.map((e) => [e.recipient ?? '', e.response ?? e.message]));
  const outcomes = new Map<string, Outcome>();
  for (const rcpt of envelope.to) {
    const refused = byRecipient.get(rcpt);
    outcomes.set(rcpt, refused === undefined ? whole : outcomeOf(refused, null));
  }
  return { kind: 'per_recipient', outcomes };
}

function outcomeOf(refused: string | null, accepted: SmtpReply | null): Outcome {
  const reply = refused === null ? accepted : parseSmtpReply(refused);
  if (reply === null) return outcomeOfTransport('protocol', refused ?? 'no reply');
  return outcomeOfReply(reply);
}
