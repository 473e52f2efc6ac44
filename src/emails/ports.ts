/**
 * Binds the send path's ports (checks.ts) to the other capabilities' services, so the send path
 * depends on their published functions only. The composition root calls this once.
 */
import type { Db } from '../platform/db/database.js';
import type { KeyPrincipal, OAuthActor } from '../platform/http/principal.js';
import type { ProjectService } from '../projects/service.js';
import type { SuppressionService } from '../suppressions/service.js';
import type { RenderedTemplate, SendPorts } from './checks.js';

/** The domains service's lookup the send path uses. */
export interface VerifiedDomainLookup {
  isVerified(projectId: string, name: string): Promise<boolean>;
}

/** The templates service's renderer the send path uses (published version, exact variables). */
export interface TemplateRenderer {
  renderForSend(
    projectId: string,
    idOrSlug: string,
    variables: Readonly<Record<string, string>>,
  ): Promise<RenderedTemplate>;
}

/** A held agent send, as the approvals capability records it. */
export interface HeldSend {
  readonly messageId: string;
  readonly projectId: string;
  readonly by: OAuthActor;
  readonly at: number;
}

/**
 * The approvals capability's port (src/approvals/hold.ts): which sends wait for a person, and the
 * record of each, written in the transaction that writes the message.
 */
export interface SendHolds {
  /** Whether a send by this caller waits for approval: an OAuth client its project does not trust. */
  holds(principal: KeyPrincipal & { readonly oauth: OAuthActor }): Promise<boolean>;
  record(trx: Db, held: HeldSend): Promise<void>;
}

export function sendPorts(services: {
  projects: ProjectService;
  suppressions: SuppressionService;
  domains: VerifiedDomainLookup;
  templates: TemplateRenderer;
}): SendPorts {
  return {
    isVerifiedDomain: (projectId, domain) => services.domains.isVerified(projectId, domain),
    findSuppressed: (projectId, emails, mode) =>
      services.suppressions.findSuppressed(projectId, emails, undefined, mode),
    memberEmails: (organizationId) => services.projects.memberEmails(organizationId),
    project: (projectId) => services.projects.get(projectId),
    renderTemplate: (projectId, idOrSlug, variables) =>
      services.templates.renderForSend(projectId, idOrSlug, variables),
  };
}
