/**
 * The template check (spec §2.7) of one stored version: the content findings (check-content.ts)
 * joined with those of the project's sending domains and tracking host. It reads the project's
 * state through the dependencies it is given and never changes anything.
 */
import type { CheckResult } from '../schemas.js';
import type { VersionRow } from '../store.js';
import { checkContent } from './check-content.js';
import { type Issue, issue } from './issues.js';

/** What the check needs to know about the project's sending domains and the tracking host. */
export interface CheckDependencies {
  domainSummaries(projectId: string): Promise<DomainSummary[]>;
  trackingDns(projectId: string): Promise<{ domain: string; ok: boolean }>;
}

export interface DomainSummary {
  readonly name: string;
  readonly status: string;
  readonly spf_status: string;
  readonly dkim_status: string;
  readonly dmarc_status: string;
}

/**
 * @example
 * const result = await checkVersion(deps, 'prj_...', await store.getVersion('tpl_...', 3));
 * // { template_id: 'tpl_...', version: 3, passed: false, issues: [{ code: 'no_verified_domain', ... }], ... }
 */
export async function checkVersion(
  deps: CheckDependencies,
  projectId: string,
  target: Pick<VersionRow, 'template_id' | 'version' | 'html_body' | 'text_body'>,
): Promise<CheckResult> {
  const content = checkContent(target);
  const [domains, tracking] = await Promise.all([
    deps.domainSummaries(projectId),
    deps.trackingDns(projectId),
  ]);
  const issues: Issue[] = [...content.issues, ...domainIssues(domains)];
  if (!tracking.ok) {
    issues.push(
      issue(
        'tracking_dns_failed',
        `The tracking domain ${tracking.domain} does not resolve.`,
        tracking.domain,
      ),
    );
  }
  return {
    template_id: target.template_id,
    version: target.version,
    checked_at: new Date().toISOString(),
    passed: !issues.some((found) => found.severity === 'error'),
    html_bytes: content.html_bytes,
    link_count: content.link_count,
    image_count: content.image_count,
    issues,
    domains,
    tracking_domain: tracking.domain,
    tracking_dns_ok: tracking.ok,
  };
}

function domainIssues(domains: readonly DomainSummary[]): Issue[] {
  const issues: Issue[] = [];
  if (!domains.some((domain) => domain.status === 'verified')) {
    issues.push(
      issue('no_verified_domain', 'No sending domain is verified; only the sandbox sender can send.'),
    );
  }
  for (const domain of domains) {
    if (domain.status !== 'verified') {
      issues.push(
        issue(
          'domain_not_verified',
          `${domain.name} is not verified (SPF ${domain.spf_status}, DKIM ${domain.dkim_status}).`,
          domain.name,
        ),
      );
    } else if (domain.dmarc_status !== 'verified') {
      issues.push(
        issue('domain_dmarc_missing', `${domain.name} publishes no valid DMARC record.`, domain.name),
      );
    }
  }
  return issues;
}
