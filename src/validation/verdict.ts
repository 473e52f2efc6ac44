/**
 * One verdict from every check's result, in a fixed order of precedence: an address that is not
 * one, that the project may not send to, or whose domain takes no mail is `undeliverable`; a DNS
 * failure leaves it `unknown`; a likely typo, a disposable domain or a role account makes it
 * `risky`; otherwise it is `deliverable`. The reason is the deciding check's own.
 */
import type { AddressChecks, SimpleCheck } from './checks.js';

export type Verdict = 'deliverable' | 'risky' | 'undeliverable' | 'unknown';

export function decide(
  checks: AddressChecks,
  suppression: SimpleCheck,
): { readonly verdict: Verdict; readonly reason: string } {
  const didYouMean = checks.suggestion ? `; did you mean ${checks.suggestion}?` : '';
  if (checks.syntax.result === 'fail') return { verdict: 'undeliverable', reason: checks.syntax.reason };
  if (suppression.result === 'fail') return { verdict: 'undeliverable', reason: suppression.reason };
  if (checks.domain.result === 'fail')
    return { verdict: 'undeliverable', reason: `${checks.domain.reason}${didYouMean}` };
  if (checks.domain.result === 'unknown') return { verdict: 'unknown', reason: checks.domain.reason };
  if (checks.typo.result === 'warn')
    return { verdict: 'risky', reason: `${checks.typo.reason}${didYouMean}` };
  if (checks.disposable.result === 'warn') return { verdict: 'risky', reason: checks.disposable.reason };
  if (checks.role_account.result === 'warn') return { verdict: 'risky', reason: checks.role_account.reason };
  return { verdict: 'deliverable', reason: checks.domain.reason };
}
