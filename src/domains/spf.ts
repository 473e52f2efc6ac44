/**
 * Does a domain's SPF record authorize this appliance? Each sending address is checked as a
 * receiver would check mail from it (RFC 7208 check_host(), spf-eval.ts), with the sender, HELO
 * name and address the caller gives (checks.ts: `postmaster@<domain>`, `delivery.hostname`). Where
 * receivers return `permerror` (a syntax error, an unknown mechanism or a bad macro anywhere in
 * the record, too many lookups, void lookups or MX hosts), the check fails. The appliance is
 * authorized when the record reaches a `+include:` of `delivery.spf_include`, or when every
 * sending IP gets `pass`. A `fail` shows the record's explanation (`exp=`, §6.2) when it has one.
 */
import type { DnsResolver } from '../platform/dns/resolver.js';
import { type Verdict, type Walk, evaluate } from './spf-eval.js';
import { expand, expandDomain, type MacroContext, parseExplanation } from './spf-macros.js';
import { PermError, SpfDns, spfRecord, TemporaryDns } from './spf-lookups.js';
import { withValidatedName } from './spf-ptr.js';
import { type ParsedSpf, spfDomain } from './spf-terms.js';

export type SpfVerdict =
  | { readonly status: 'verified' }
  | { readonly status: 'failed'; readonly reason: string; readonly temporary: boolean };

export interface SpfTarget {
  /** Addresses that must be authorized; empty when only `include` counts. */
  readonly ips: readonly string[];
  /** An `include:` domain that authorizes the appliance; '' for none. */
  readonly include: string;
  /** The HELO name receivers see (`%{h}`). */
  readonly helo: string;
  /** The local-part of the sender (`%{l}`); the sender is `<localPart>@<the domain checked>`. */
  readonly localPart: string;
  /** Without configured IPs or include: the host whose addresses `ips` are (`delivery.hostname`). */
  readonly hostname?: string;
  /**
   * Why `ips` may be incomplete now (a temporary DNS failure looking them up). The check can then
   * still fail for an address it knows, but never pass, nor fail for want of addresses.
   */
  readonly incomplete?: string;
}

/** An explanation is shown as the record's owner wrote it, up to this length. */
const MAX_EXPLANATION = 200;

/**
 * §6.2: the explanation of a `fail`, looked up after the evaluation and outside its limits; any
 * DNS failure, other than exactly one TXT record, or a bad explain-string means none.
 */
async function explanation(dns: SpfDns, verdict: Verdict, context: Omit<MacroContext, 'domain'>) {
  if (verdict.exp === undefined) return undefined;
  const { spec, domain } = verdict.exp;
  const withDomain = { ...context, domain };
  const name = expandDomain(spec, await withValidatedName(dns, spec.tokens, withDomain));
  const answer = name === undefined ? undefined : await dns.txt(name);
  if (answer?.status !== 'found' || answer.records.length !== 1) return undefined;
  const tokens = parseExplanation(answer.records[0] as string);
  const text = tokens && expand(tokens, await withValidatedName(dns, tokens, withDomain));
  return text && text.length > MAX_EXPLANATION ? `${text.slice(0, MAX_EXPLANATION)}…` : text || undefined;
}

interface Findings {
  readonly includesTarget: boolean;
  readonly missing: readonly string[];
  readonly explanations: readonly string[];
}

async function examine(dns: SpfDns, domain: string, record: ParsedSpf, target: SpfTarget): Promise<Findings> {
  const include = target.include === '' ? '' : spfDomain(target.include);
  const walk = (ip: string | undefined): Walk => ({
    dns,
    context: { sender: `${target.localPart}@${domain}`, helo: target.helo, ip },
    include,
    includesTarget: false,
    lookups: 0,
    voids: [],
  });
  if (target.ips.length === 0) {
    // No address to check: does the record reach the include (and is it valid at all)?
    const check = walk(undefined);
    await evaluate(check, domain, record);
    return { includesTarget: check.includesTarget, missing: [], explanations: [] };
  }
  let includesTarget = false;
  const missing: string[] = [];
  const explanations: string[] = [];
  for (const ip of target.ips) {
    const check = walk(ip);
    const verdict = await evaluate(check, domain, record);
    includesTarget ||= check.includesTarget;
    if (verdict.qualifier === '+') continue;
    missing.push(ip);
    const text = verdict.qualifier === '-' ? await explanation(dns, verdict, check.context) : undefined;
    if (text !== undefined && !explanations.includes(text)) explanations.push(text);
  }
  return { includesTarget, missing, explanations };
}

function failure(domain: string, target: SpfTarget, findings: Findings): string {
  const wanted: string[] = [];
  if (target.include !== '') wanted.push(`include include:${target.include}`);
  if (findings.missing.length > 0) wanted.push(`authorize ${findings.missing.join(', ')}`);
  const explained = findings.explanations.map((text) => `"${text}"`).join(', ');
  if (wanted.length > 0) {
    const reason = `SPF record at ${domain} does not ${wanted.join(' nor ')}`;
    return explained === '' ? reason : `${reason}; its explanation: ${explained}`;
  }
  return target.hostname !== undefined
    ? `no address (A or AAAA) found for delivery.hostname ${target.hostname} to check SPF against; set delivery.sending_ips or delivery.spf_include`
    : 'no sending address is configured to check SPF against (set delivery.sending_ips or delivery.spf_include)';
}

/**
 * @example
 * const target = { ips: ['192.0.2.10'], include: '', helo: 'mta.example.net', localPart: 'postmaster' };
 * const verdict = await checkSpf(resolver, 'example.com', target);
 * if (verdict.status === 'failed') log.warn(verdict.reason);
 */
export async function checkSpf(
  resolver: DnsResolver,
  domain: string,
  target: SpfTarget,
): Promise<SpfVerdict> {
  const dns = new SpfDns(resolver);
  try {
    const findings = await examine(dns, domain, await spfRecord(dns, domain), target);
    if (findings.includesTarget) return { status: 'verified' };
    // Temporary DNS failures never change a domain's status: without every address, no verdict.
    if (findings.missing.length === 0 && target.incomplete !== undefined)
      return { status: 'failed', reason: target.incomplete, temporary: true };
    if (target.ips.length > 0 && findings.missing.length === 0) return { status: 'verified' };
    return { status: 'failed', reason: failure(domain, target, findings), temporary: false };
  } catch (error) {
    if (error instanceof TemporaryDns) return { status: 'failed', reason: error.message, temporary: true };
    if (error instanceof PermError) return { status: 'failed', reason: error.message, temporary: false };
    throw error;
  }
}
