/**
 * The checks a scheduled send passes again when its time comes. Acceptance (checks.ts) ran them
 * up to 30 days earlier (the spec lets `send_at` lie that far ahead); since then the project may
 * have been suspended, the sender domain may have lost its verification, and recipients may have
 * been suppressed. The same steps in the same order through the same ports: suspended project →
 * sender → suppression.
 * Quotas and rate limits are not counted again: the send was counted when it was accepted.
 * It only decides; the scheduler writes the outcome, and it never writes anything itself.
 */
import type { Config } from '../platform/config/schema.js';
import type { KeyMode } from '../platform/db/tables.js';
import { AppError } from '../platform/http/errors.js';
import { checkNotSuspended, createSenderCheck, type SendPorts } from './checks.js';
import type { ScheduledRecipient } from './store.js';

/** The parts of a due message the checks read. */
export interface DueMessage {
  readonly project_id: string;
  readonly mode: KeyMode;
  readonly from_email: string;
  readonly from_domain: string;
}

export type ReleaseVerdict =
  /** Release, holding back the recipients suppressed since (recipient ID → suppression reason). */
  | { readonly kind: 'release'; readonly suppressed: ReadonlyMap<string, string> }
  /** Not sent at all: `reason` is the refusal a send made now would get. */
  | { readonly kind: 'fail'; readonly reason: string };

export type ReleaseCheck = (
  message: DueMessage,
  recipients: readonly ScheduledRecipient[],
) => Promise<ReleaseVerdict>;

/**
 * @example
 * const verdict = await checkRelease(message, recipients);
 * if (verdict.kind === 'fail') markFailed(verdict.reason); // e.g. "This project is suspended: ..."
 */
export function createReleaseCheck(sandbox: Config['sandbox'], ports: SendPorts): ReleaseCheck {
  const checkSender = createSenderCheck(sandbox, ports);

  return async function checkRelease(message, recipients) {
    const project = await ports.project(message.project_id);
    if (project === undefined) return { kind: 'fail', reason: 'The project no longer exists.' };
    try {
      checkNotSuspended({ projectStatus: project.status });
      await checkSender(
        {
          projectId: message.project_id,
          organizationId: project.organizationId,
          projectStatus: project.status,
          mode: message.mode,
        },
        {
          from: { email: message.from_email, domain: message.from_domain },
          recipients: recipients.map((r) => ({ email: r.email, mailbox: { email: r.email } })),
        },
      );
    } catch (error) {
      // A refusal the caller would have seen is the reason; anything else is the scheduler's to log.
      if (error instanceof AppError && error.expose) return { kind: 'fail', reason: error.message };
      throw error;
    }
    const hits = await ports.findSuppressed(
      message.project_id,
      recipients.map((r) => r.email),
      message.mode,
    );
    const suppressed = new Map<string, string>();
    for (const recipient of recipients) {
      const hit = hits.get(recipient.email);
      if (hit) suppressed.set(recipient.id, hit.reason);
    }
    return { kind: 'release', suppressed };
  };
}
