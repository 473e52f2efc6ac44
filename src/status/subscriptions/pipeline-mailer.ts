/**
 * The status area's mail through the send API (`emails.send`): as the project whose verified
 * domain is the domain of `status.mail_from`, so the mail is queued, DKIM-signed, delivered,
 * retried and listed like the project's own. The project is found once and remembered (found
 * again if it stops fitting). A send that cannot be made throws, and the caller answers 503.
 */
import type { KeyPrincipal } from '../../platform/http/principal.js';
import type { ProjectStatus } from '../../platform/db/tables.js';
import { type SendRequest, sendRequest } from '../../emails/schemas.js';
import type { StatusMail, StatusMailer } from './mail-port.js';

export interface PipelineMailerDeps {
  /** `status.mail_from`: display name and address, e.g. `Acme Status <status@acme.com>`. */
  readonly from: string;
  readonly send: (principal: KeyPrincipal, request: SendRequest) => Promise<{ id: string }>;
  readonly projects: () => Promise<readonly { id: string; organizationId: string; status: ProjectStatus }[]>;
  readonly isVerified: (projectId: string, domain: string) => Promise<boolean>;
}

export function pipelineMailer(deps: PipelineMailerDeps): StatusMailer {
  const domain = /@([^@>\s]+)>?\s*$/.exec(deps.from)?.[1]?.toLowerCase();
  let sender: KeyPrincipal | undefined;

  async function principal(): Promise<KeyPrincipal> {
    if (domain === undefined) throw new Error('status.mail_from is not set to an address');
    if (sender) return sender;
    for (const project of await deps.projects()) {
      if (project.status === 'suspended' || !(await deps.isVerified(project.id, domain))) continue;
      sender = {
        kind: 'key',
        keyId: 'system:status',
        projectId: project.id,
        organizationId: project.organizationId,
        projectStatus: project.status,
        mode: 'live',
        scopes: new Set(['emails:send']),
      };
      return sender;
    }
    throw new Error(`no active project has verified ${domain}, the domain of status.mail_from`);
  }

  return {
    async send(mail: StatusMail) {
      const as = await principal();
      try {
        // Parsed as the API parses a request body: the same address and header rules.
        const request = sendRequest.parse({
          from: deps.from,
          to: [mail.to],
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          ...(mail.headers ? { headers: { ...mail.headers } } : {}),
        });
        return await deps.send(as, request);
      } catch (error) {
        sender = undefined;
        throw error;
      }
    },
  };
}
