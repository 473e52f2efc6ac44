/**
 * The checks an accepted send passes, in the order the spec sets (§1, §4.1 rules 4–5), each a
 * small step that returns or throws the refusal a caller sees:
 *   send_at bounds (400) → suspended project (403) → sender (403) → suppression (422) →
 *   quotas and rate limits (429).
 * Scope (403) is enforced by the route before any of these, and none of them runs for a request
 * whose Idempotency-Key replays an earlier send. Steps read other capabilities only
 * through the ports below (their services), never their tables. A scheduled send passes the
 * suspension, sender and suppression checks again when its time comes (release-check.ts), and a
 * held agent send passes them again when a member approves it (held.ts).
 */
import type { Config } from '../platform/config/schema.js';
import type { KeyMode, ProjectStatus } from '../platform/db/tables.js';
import { AppError, badRequest, forbidden } from '../platform/http/errors.js';
import type { KeyPrincipal } from '../platform/http/principal.js';
import { isTestRecipient } from '../platform/test-recipients.js';
import { normalizeEmail } from '../platform/normalize-email.js';
import { type Mailbox, parseMailbox } from '../platform/mail-address.js';
import type { Draft } from './model.js';
import { MAX_SCHEDULE_AHEAD_MS } from './schemas.js';

/** What the send path needs from the domains, suppressions, templates and projects services. */
export interface SendPorts {
  isVerifiedDomain(projectId: string, domain: string): Promise<boolean>;
  /** Suppressed addresses among `emails` in the list of `mode`, keyed by normalized address, with the reason. */
  findSuppressed(
    projectId: string,
    emails: readonly string[],
    mode: KeyMode,
  ): Promise<ReadonlyMap<string, { reason: string }>>;
  memberEmails(organizationId: string): Promise<readonly string[]>;
  /** The project's organization and status now; undefined when the project is gone. */
  project(
    projectId: string,
  ): Promise<{ readonly organizationId: string; readonly status: ProjectStatus } | undefined>;
  renderTemplate(
    projectId: string,
    idOrSlug: string,
    variables: Record<string, string>,
  ): Promise<RenderedTemplate>;
}

/** A template's published version rendered for one send. */
export interface RenderedTemplate {
  readonly subject: string;
  readonly html: string | null;
  readonly text: string | null;
  readonly templateId: string;
  readonly version: number;
}

/**
 * Spec §8: `send_at` lies in the future and at most 30 days ahead. Not part of the body schema
 * (which checks only its format): a retry whose key replays an earlier send must not fail because
 * its send_at has passed meanwhile. The 400 reads as the schema's would; `where` is "body" for a
 * send and "email" for a batch item.
 */
export function checkSendAt(sendAt: number | undefined, where: 'body' | 'email', now = Date.now()): void {
  if (sendAt === undefined) return;
  const problem =
    sendAt <= now
      ? 'must be in the future'
      : sendAt - now > MAX_SCHEDULE_AHEAD_MS
        ? 'must be at most 30 days ahead'
        : null;
  if (problem)
    throw badRequest(`Invalid ${where}: send_at: ${problem}.`, [{ path: 'send_at', message: problem }]);
}

/** Who sends to whom: a Draft, or a scheduled message read back at its release. */
export interface SenderCheckInput {
  readonly from: Pick<Mailbox, 'email' | 'domain'>;
  readonly recipients: ReadonlyArray<{ readonly email: string; readonly mailbox: Pick<Mailbox, 'email'> }>;
}

export function checkNotSuspended(principal: Pick<KeyPrincipal, 'projectStatus'>): void {
  if (principal.projectStatus === 'suspended') {
    throw forbidden('This project is suspended: sending is disabled until an operator reactivates it.');
  }
}

export function createSenderCheck(sandbox: Config['sandbox'], ports: SendPorts) {
  const parsed = parseMailbox(sandbox.from);
  const sandboxSender: Mailbox | undefined = parsed.ok ? parsed.value : undefined;
  const sandboxEmail = sandboxSender && normalizeEmail(sandboxSender.email);

  return async function checkSender(
    principal: Pick<KeyPrincipal, 'projectId' | 'organizationId' | 'projectStatus' | 'mode'>,
    draft: SenderCheckInput,
  ): Promise<void> {
    if (sandboxSender && normalizeEmail(draft.from.email) === sandboxEmail) {
      const members = new Set(
        (await ports.memberEmails(principal.organizationId)).map((email) => normalizeEmail(email) ?? email),
      );
      // DESIGN.md §4a: a test key may also send to the reserved test recipients (nothing leaves the box).
      const reserved = (email: string) =>
        principal.mode === 'test' && isTestRecipient(email, sandbox.test_domain);
      const outsider = draft.recipients.find(
        (recipient) => !members.has(recipient.email) && !reserved(recipient.email),
      );
      if (outsider) {
        throw forbidden(
          `The shared sandbox sender ${sandboxSender.email} may send only to members of your organization; ` +
            `${outsider.mailbox.email} is not one. Verify a domain to send to anyone.`,
        );
      }
      return;
    }
    if (!(await ports.isVerifiedDomain(principal.projectId, draft.from.domain))) {
      throw forbidden(
        `The sender domain ${draft.from.domain} is not a verified domain of this project. ` +
          `Add and verify it under /v1/domains, or send from the sandbox sender ${sandboxSender?.email ?? ''} to members of your organization.`,
      );
    }
    // DESIGN §4: in the sandbox only the sandbox sender sends. A sandbox project with a verified
    // domain is one an operator set back (verifying a domain activates it).
    if (principal.projectStatus === 'sandbox') {
      throw forbidden(
        `This project is in the sandbox: only the shared sandbox sender ${sandboxSender?.email ?? ''} may send, and only to members of your organization. ` +
          'A project leaves the sandbox when a domain of it becomes verified or an operator activates it.',
      );
    }
  };
}

/** A Draft, or a held send read back at its approval (held.ts). */
export type SuppressionCheckInput = Pick<Draft, 'projectId' | 'mode'> & SenderCheckInput;

export async function checkSuppression(ports: SendPorts, draft: SuppressionCheckInput): Promise<void> {
  const hits = await ports.findSuppressed(
    draft.projectId,
    draft.recipients.map((recipient) => recipient.email),
    draft.mode,
  );
  if (hits.size === 0) return;
  const recipient = draft.recipients.find((r) => hits.has(r.email));
  const email = recipient?.mailbox.email ?? [...hits.keys()][0];
  const reason = hits.get(recipient?.email ?? '')?.reason;
  // Spec §7: the body is exactly {"error": "..."} stating that the recipient is suppressed.
  throw new AppError(
    'suppressed',
    `The recipient ${email} is on the suppression list${reason ? ` (${reason.replaceAll('_', ' ')})` : ''}; nothing was sent.`,
  );
}
