/**
 * Recipients a server refused as over its limit per transaction (RFC 5321 §4.5.3.1.10: "452 too
 * many recipients", or RFC 821's 552, which clients SHOULD take for the same; RFC 3463's X.5.3)
 * go in another transaction at once, on the same connection, instead of waiting for a retry. The
 * server took the others, so each new transaction makes progress; it goes on until every
 * recipient has a reply of its own (delivered, refused for another reason, or a failure).
 *
 * A follow-up transaction is one more message to the server: it waits for a token of the lane's
 * rate like any other, and none is started once the engine is stopping (those recipients keep their
 * 452: deferred).
 */
import type { Envelope, MxConnection, SmtpError } from './mx-connection.js';
import type { Outcome } from './outcome.js';
import { parseSmtpReply } from './smtp-reply.js';
import { outcomesOfReplies, resultOfError } from './transaction-outcomes.js';

/**
 * Whether a refusal of RCPT TO says the transaction has all the recipients the server takes.
 *
 * @example overRecipientLimit('452 4.5.3 Too many recipients') // true
 * @example overRecipientLimit('452 4.2.2 Mailbox full') // false
 */
export function overRecipientLimit(raw: string): boolean {
  const reply = parseSmtpReply(raw);
  if (reply === null || (reply.code !== 452 && reply.code !== 552)) return false;
  if (reply.enhanced !== null) return /^[45]\.5\.3$/.test(reply.enhanced);
  return /too many recipients/i.test(reply.text);
}

/**
 * Sends `message` again on `connection` to the recipients of `envelope` that `refused` names as
 * over the limit, as long as some are left and `mayStart()` (which waits for the lane's rate) says
 * yes; each transaction's outcomes are given to `answer` as it ends, replacing the earlier ones.
 * Returns false when the connection must be dropped (a follow-up failed and could not be reset).
 */
export async function sendOverLimit(
  connection: MxConnection,
  envelope: Envelope,
  message: Buffer,
  refused: ReadonlyMap<string, string>,
  answer: (rcpt: string, outcome: Outcome) => void,
  mayStart: () => Promise<boolean>,
): Promise<boolean> {
  let rest = leftOver(envelope.to, refused);
  while (rest.length > 0 && connection.usable && (await mayStart()) && connection.usable) {
    const next: Envelope = { ...envelope, to: rest };
    try {
      const replies = await connection.send(next, message);
      for (const [rcpt, outcome] of outcomesOfReplies(rest, replies)) answer(rcpt, outcome);
      const after = leftOver(rest, replies.rejected);
      // The server took none of them after all: they keep their 452 (never loop).
      if (after.length >= rest.length) break;
      rest = after;
    } catch (error) {
      const result = resultOfError(error as SmtpError, next);
      for (const rcpt of rest) {
        const outcome = result.kind === 'per_recipient' ? result.outcomes.get(rcpt) : result;
        if (outcome !== undefined) answer(rcpt, outcome);
      }
      return connection.usable && (await connection.reset());
    }
  }
  return true;
}

function leftOver(to: readonly string[], refused: ReadonlyMap<string, string>): string[] {
  return to.filter((rcpt) => {
    const reply = refused.get(rcpt);
    return reply !== undefined && overRecipientLimit(reply);
  });
}
