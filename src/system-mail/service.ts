/**
 * Posthorn's own mail: login codes, member invitations, status notices, broadcast notices. Every
 * such mail goes through the same pipeline as a customer's (admission, the queue, DKIM signing,
 * the delivery engine) as a live message of the operator's system project, so it is recorded,
 * retried, bounced and suppressed like any other. It skips the sender rules that guard customer
 * projects (sandbox, verified domain) and the API-key rate limits: the operator's own sender is
 * trusted, and the callers rate-limit what triggers a mail (docs/decisions/accounts.md).
 *
 * It must never be reachable from a customer's request without the caller's own limits: it sends
 * to any address.
 *
 * @example
 * await services.systemMail.send({
 *   to: 'ann@example.com',
 *   subject: 'Your sign-in code',
 *   text: 'Your code is 123456.',
 *   tags: { kind: 'login_code' },
 * });
 */
import type { DomainService } from '../domains/service.js';
import type { EmailService } from '../emails/service.js';
import { sendRequest } from '../emails/schemas.js';
import type { MessageRef } from '../emails/model.js';
import type { Config } from '../platform/config/schema.js';
import { AppError } from '../platform/http/errors.js';
import type { Logger } from '../platform/log.js';
import type { ProjectService, ProjectView } from '../projects/service.js';
import { parseMailbox } from '../platform/mail-address.js';

export interface SystemMail {
  /** One address, or several (each gets the same message; they see each other in To). */
  readonly to: string | readonly string[];
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
  /** Labels kept on the message (`kind` names what sent it: `login_code`, `invitation`, ...). */
  readonly tags?: Readonly<Record<string, string>>;
  /** Headers the send API accepts (RFC 8058 `List-Unsubscribe` and `List-Unsubscribe-Post` on notices). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface SystemMailDeps {
  readonly config: Config;
  readonly projects: ProjectService;
  readonly domains: Pick<DomainService, 'create' | 'signingKeys'>;
  readonly emails: Pick<EmailService, 'sendSystem'>;
  readonly log: Logger;
}

/** The configured system sender: `system_mail.from`, or the sandbox sender when it is empty. */
export function systemSender(config: Config): string {
  return config.system_mail.from === '' ? config.sandbox.from : config.system_mail.from;
}

export function createSystemMail(deps: SystemMailDeps) {
  const { config, projects, domains, emails } = deps;
  const log = deps.log.child({ capability: 'system-mail' });
  const from = systemSender(config);
  const parsed = parseMailbox(from);
  if (!parsed.ok) throw new Error(`system sender ${from}: ${parsed.reason}`);
  const senderDomain = parsed.value.domain;
  let project: Promise<ProjectView> | undefined;
  let domainReady: Promise<void> | undefined;

  const ensureProject = (): Promise<ProjectView> => {
    project ??= projects.ensureSystemProject().catch((error: unknown) => {
      project = undefined;
      throw error;
    });
    return project;
  };

  /** The sender's domain in the system project, with DKIM keys, so delivery signs the mail. */
  const ensureDomain = (projectId: string): Promise<void> => {
    domainReady ??= (async () => {
      if (await domains.signingKeys(projectId, senderDomain)) return;
      try {
        await domains.create(projectId, { name: senderDomain, region: 'eu' }, 'system');
        log.info(
          { domain: senderDomain, project_id: projectId },
          `added the system sender's domain ${senderDomain} to the system project; publish its DNS records`,
        );
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      }
    })().catch((error: unknown) => {
      domainReady = undefined;
      throw error;
    });
    return domainReady;
  };

  return {
    /** The sender every system mail carries. */
    from,

    /** The system project, made at the first call (boot calls it). */
    ensureProject,

    /**
     * Queues one system mail and returns its message reference. Throws the pipeline's refusal
     * (422 when a recipient is on the system project's suppression list); callers that must not
     * reveal whether an address exists catch and log it.
     */
    async send(mail: SystemMail): Promise<MessageRef> {
      const { id: projectId } = await ensureProject();
      await ensureDomain(projectId);
      const parsedRequest = sendRequest.safeParse({
        from,
        to: typeof mail.to === 'string' ? [mail.to] : [...mail.to],
        subject: mail.subject,
        text: mail.text,
        ...(mail.html === undefined ? {} : { html: mail.html }),
        tags: { ...mail.tags },
        ...(mail.headers === undefined ? {} : { headers: { ...mail.headers } }),
      });
      if (!parsedRequest.success) {
        const issue = parsedRequest.error.issues[0];
        throw new Error(`system mail refused: ${issue?.path.join('.')}: ${issue?.message}`);
      }
      const request = parsedRequest.data;
      const ref = await emails.sendSystem(projectId, request);
      log.debug({ message_id: ref.id, kind: mail.tags?.kind }, 'system mail queued');
      return ref;
    },
  };
}

export type SystemMailService = ReturnType<typeof createSystemMail>;
