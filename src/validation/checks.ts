/**
 * The checks of one address that do not depend on the project asking: syntax, domain (DNS),
 * disposable domain, role account and typo. Their results are what the validation cache keeps;
 * suppression membership is the project's own and is asked fresh on every request (service.ts).
 * Syntax comes first: an address that is not one is not looked up.
 */
import type { DnsResolver } from '../platform/dns/resolver.js';
import type { DisposableDomains } from './disposable.js';
import { type CheckResult, checkDomain, type DomainCheck } from './domain-check.js';
import { roleOf } from './role.js';
import { checkSyntax } from './syntax.js';
import { suggestDomain } from './typo.js';

export interface SimpleCheck {
  readonly result: CheckResult;
  readonly reason: string;
}

export interface AddressChecks {
  /** `local@domain` in lower case with the domain in A-labels; null when the syntax failed. */
  readonly normalized: string | null;
  /** The whole address with a provider typo corrected, when there is one. */
  readonly suggestion: string | null;
  readonly syntax: SimpleCheck;
  readonly domain: DomainCheck | (SimpleCheck & { readonly result: 'skipped' });
  readonly disposable: SimpleCheck & { readonly listed?: string };
  readonly role_account: SimpleCheck & { readonly role?: string };
  readonly typo: SimpleCheck & { readonly suggestion?: string };
  /** When the checks ran (ms). */
  readonly checkedAt: number;
}

const skipped = (reason: string) => ({ result: 'skipped' as const, reason });

export interface CheckDeps {
  readonly dns: DnsResolver;
  readonly disposable: DisposableDomains;
}

export async function runAddressChecks(
  deps: CheckDeps,
  email: string,
  now = Date.now(),
): Promise<AddressChecks> {
  const syntax = checkSyntax(email);
  if (!syntax.ok) {
    const notChecked = skipped('not checked: the address is not valid');
    return {
      normalized: null,
      suggestion: null,
      syntax: { result: 'fail', reason: syntax.reason },
      domain: notChecked,
      disposable: notChecked,
      role_account: notChecked,
      typo: notChecked,
      checkedAt: now,
    };
  }
  const { local, domain } = syntax;
  const normalized = `${local.toLowerCase()}@${domain}`;
  const disposable = await deps.disposable.check(domain, now);
  // A listed disposable domain is a service of its own, so only a one-edit slip counts as a typo.
  const typoOf = suggestDomain(domain, { strict: disposable.disposable });
  const role = roleOf(local);
  return {
    normalized,
    suggestion: typoOf === undefined ? null : `${local}@${typoOf}`,
    syntax: {
      result: 'pass',
      reason: syntax.quoted
        ? 'a valid address with a quoted local part (RFC 5321 §4.1.2); some providers refuse those'
        : 'a valid address (RFC 5321, RFC 5322)',
    },
    domain: await checkDomain(deps.dns, domain),
    disposable: disposable.disposable
      ? {
          result: 'warn',
          reason: `${domain} is a disposable mail domain${disposable.listed === domain ? '' : ` (under ${disposable.listed})`}`,
          ...(disposable.listed === undefined ? {} : { listed: disposable.listed }),
        }
      : { result: 'pass', reason: `${domain} is not a known disposable mail domain` },
    role_account:
      role === undefined
        ? { result: 'pass', reason: 'the local part names no role' }
        : { result: 'warn', reason: `${role}@ is a role account, read by a group or by nobody`, role },
    typo:
      typoOf === undefined
        ? { result: 'pass', reason: 'no likely typo of a common provider' }
        : { result: 'warn', reason: `${domain} looks like a typo of ${typoOf}`, suggestion: typoOf },
    checkedAt: now,
  };
}
