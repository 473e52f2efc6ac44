/**
 * The built-in sink for `ph_test_` sends (DESIGN.md §4): nothing leaves the machine, and the
 * answers are those a real MX would give, so the same events follow. The reserved addresses
 * themselves are never suppressed, so they work every time (DESIGN.md §4a).
 * Every recipient is accepted, except the reserved ones at `sandbox.test_domain`:
 *
 * - `bounce@`: refused with 550 5.1.1 (mailbox unknown): a hard bounce.
 * - `complaint@`: accepted, then complained about (as an ARF report would say).
 * - `delay@`: deferred with 451 4.7.1 on the first attempt, accepted on the retry.
 */
import { type Outcome, outcomeOfReply, type PerRecipient } from '../replies/outcome.js';
import { smtpReply } from '../replies/smtp-reply.js';

/** The MX host name events and attempts show for sandbox deliveries. */
export const SANDBOX_HOST = 'sandbox.posthorn.invalid';

/**
 * @example sinkOutcomes(['bounce@posthorn.test'], 'posthorn.test', 0) // bounced, 550 5.1.1
 */
export function sinkOutcomes(
  recipients: readonly string[],
  testDomain: string,
  attemptsBefore: number,
): PerRecipient {
  const domain = testDomain.toLowerCase();
  const outcomes = new Map<string, Outcome>();
  for (const address of recipients) {
    outcomes.set(address, sinkOutcome(address.toLowerCase(), domain, attemptsBefore));
  }
  return { kind: 'per_recipient', outcomes };
}

function sinkOutcome(address: string, testDomain: string, attemptsBefore: number): Outcome {
  const accepted = outcomeOfReply(smtpReply(250, '2.0.0 OK: accepted by the Posthorn sandbox'));
  switch (address) {
    case `bounce@${testDomain}`:
      return outcomeOfReply(smtpReply(550, '5.1.1 The email account does not exist (Posthorn sandbox)'));
    case `complaint@${testDomain}`:
      return {
        kind: 'delivered',
        reply: smtpReply(250, '2.0.0 OK: accepted by the Posthorn sandbox'),
        complained: true,
      };
    case `delay@${testDomain}`:
      return attemptsBefore === 0
        ? outcomeOfReply(smtpReply(451, '4.7.1 Temporarily deferred, try again later (Posthorn sandbox)'))
        : accepted;
    default:
      return accepted;
  }
}
