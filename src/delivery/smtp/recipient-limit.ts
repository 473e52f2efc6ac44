/**
 * Recipients a server refused as over its limit per transaction (RFC 5321 §4.5.3.1.10: "452 too
 * many recipients", or RFC 821's 552, which clients SHOULD take for the same; RFC 3463's X.5.3)
 * go in another transaction at once, on the same connection, instead of waiting for a retry. The
 * server took the others, so each new transaction makes progress; it goes on until every
 * recipient has a reply of its own (delivered, refused for another reason, or a failure).
 *
 * A follow-up transaction is one more message to the server: it waits for a token of the lane's
 * rate like any other, and none is started once the engine is stopping. A refusal over the limit
 * is no answer about its recipient: until a follow-up answers them, those recipients are pending,
 * never in `answer`, so a stop that comes first gives them back to the queue with the job,
 * untried (no event, no attempt), rather than recording a deferral that would then be retried at
 * once with the job. Only when no follow-up can carry them (the server took none of them, or
 * dropped the connection) does the refusal become their outcome (a 452: deferred to their retry
 * time).
 */
import type { Envelope, MxConnection, SmtpError, TransactionReplies } from './mx-connection.js';
import type { Outcome } from '../replies/outcome.js';
import { parseSmtpReply } from '../replies/smtp-reply.js';
import { outcomesOfReplies, resultOfError } from './transaction-outcomes.js';

/**
 * Whether a refusal of RCPT TO says the transaction has all the recipients the server takes: its
 * enhanced status code is X.5.3 (RFC 3463 §3.6: "too many recipients", whatever the reply code:
 * some servers answer 451 4.5.3 or 550 5.5.3), or, without one, a 452 or 552 that says so.
 *
 * @example overRecipientLimit('452 4.5.3 Too many recipients') // true
 * @example overRecipientLimit('451 4.5.3 Too many recipients') // true
 * @example overRecipientLimit('452 4.2.2 Mailbox full') // false
 */
export function overRecipientLimit(raw: string): boolean {
  const reply = parseSmtpReply(raw);
  if (reply === null || reply.code < 400 || reply.code >= 600) return false;
  if (reply.enhanced !== null) return /^[45]\.5\.3$/.test(reply.enhanced);
  return (reply.code === 452 || reply.code === 552) && /too many recipients/i.test(reply.text);
}

/** How the follow-ups ended. */
export interface FollowUps {
  /** Whether the connection may carry another message (false: a follow-up failed and could not be reset). */
  readonly reusable: boolean;
  /** Recipients still over the limit when the engine stopped before a follow-up for them: unanswered. */
  readonly unsent: readonly string[];
}

/**
 * Gives `answer` the final outcome of each recipient of `envelope` after the transaction that
 * `replies` ended: at once for those it answered, and for those it refused as over the limit once
 * a follow-up on `connection` answers them. Follow-ups go on while some are left and `mayStart()`
 * (which waits for the lane's rate) says yes; when it says no (the engine is stopping), those left
 * are returned as `unsent`, not answered.
 */
export async function sendOverLimit(
  connection: MxConnection,
  envelope: Envelope,
  message: Buffer,
  replies: TransactionReplies,
  answer: (rcpt: string, outcome: Outcome) => void,
  mayStart: () => Promise<boolean>,
): Promise<FollowUps> {
  let outcomes = outcomesOfReplies(envelope.to, replies);
  let rest = leftOver(envelope.to, replies.rejected);
  for (;;) {
    const pending = new Set(rest);
    for (const [rcpt, outcome] of outcomes) if (!pending.has(rcpt)) answer(rcpt, outcome);
    if (rest.length === 0 || !connection.usable) break;
    if (!(await mayStart())) return { reusable: true, unsent: rest };
    if (!connection.usable) break;
    const next: Envelope = { ...envelope, to: rest };
    let sent: TransactionReplies;
    try {
      sent = await connection.send(next, message);
    } catch (error) {
      const result = resultOfError(error as SmtpError, next);
      for (const rcpt of rest) {
        const outcome = result.kind === 'per_recipient' ? result.outcomes.get(rcpt) : result;
        if (outcome !== undefined) answer(rcpt, outcome);
      }
      return { reusable: connection.usable && (await connection.reset()), unsent: [] };
    }
    outcomes = outcomesOfReplies(rest, sent);
    const after = leftOver(rest, sent.rejected);
    // The server took none of them after all: they keep their refusal (never loop).
    if (after.length >= rest.length) break;
    rest = after;
  }
  // No follow-up can carry those left: their refusal is their outcome.
  for (const rcpt of rest) {
    const outcome = outcomes.get(rcpt);
    if (outcome !== undefined) answer(rcpt, outcome);
  }
  return { reusable: true, unsent: [] };
}

function leftOver(to: readonly string[], refused: ReadonlyMap<string, string>): string[] {
  return to.filter((rcpt) => {
    const reply = refused.get(rcpt);
    return reply !== undefined && overRecipientLimit(reply);
  });
}
