/**
 * Address validation (`POST /v1/validation`): the address checks (checks.ts), cached; the
 * project's suppression list, asked fresh each time through the suppressions service; one
 * verdict (verdict.ts). It never connects to the recipient's mail server: no SMTP probing
 * (docs/decisions/validation.md).
 */
import type { KeyMode } from '../platform/db/tables.js';
import type { DnsResolver } from '../platform/dns/resolver.js';
import type { SuppressionService } from '../suppressions/service.js';
import { normalizeEmail } from '../platform/normalize-email.js';
import type { CachedChecks, ValidationCache } from './cache.js';
import { runAddressChecks, type SimpleCheck } from './checks.js';
import type { DisposableDomains } from './disposable.js';
import type { createValidationLimit } from './rate-limit.js';
import type { ValidationResult } from './schemas.js';
import { decide } from './verdict.js';

export interface ValidationDeps {
  readonly dns: DnsResolver;
  readonly disposable: DisposableDomains;
  readonly cache: ValidationCache;
  readonly limit: ReturnType<typeof createValidationLimit>;
  readonly suppressions: Pick<SuppressionService, 'getNormalized'>;
}

type SuppressionCheck = ValidationResult['checks']['suppression'];

const iso = (ms: number) => new Date(ms).toISOString();

async function suppressionCheck(
  deps: ValidationDeps,
  projectId: string,
  mode: KeyMode,
  checks: CachedChecks,
): Promise<SuppressionCheck> {
  if (checks.normalized === null)
    return { result: 'skipped', reason: 'not checked: the address is not valid' };
  // An address the suppression list cannot spell is on no list (as `suppressions.get` answers).
  const record =
    checks.listAddress === null
      ? undefined
      : await deps.suppressions.getNormalized(projectId, checks.listAddress, mode);
  if (!record) return { result: 'pass', reason: 'not on this project’s suppression list' };
  return {
    result: 'fail',
    reason: `on this project’s suppression list (${record.reason.replaceAll('_', ' ')}); a send to it is refused`,
    suppression_reason: record.reason,
    suppressed_at: record.created_at,
  };
}

export function createValidationService(deps: ValidationDeps) {
  /** The address checks of `email`, from the cache when they are there. */
  async function addressChecks(
    email: string,
    now: number,
  ): Promise<{ checks: CachedChecks; cached: boolean }> {
    const key = email.trim().normalize('NFC');
    const hit = deps.cache.get(key, now);
    if (hit) return { checks: hit, cached: true };
    const found = await runAddressChecks(deps, key, now);
    const checks: CachedChecks = {
      ...found,
      listAddress: found.normalized === null ? null : (normalizeEmail(found.normalized) ?? null),
    };
    deps.cache.set(key, checks);
    return { checks, cached: false };
  }

  return {
    /** Counts one request against the project's limit: the RateLimit headers, or a 429. */
    limit(projectId: string, now = Date.now()): Record<string, string> {
      return deps.limit.take(projectId, now);
    },

    /**
     * The suppression list asked is the key's mode's (a test key's suppressions are its own).
     *
     * @example
     * const result = await validation.validate(projectId, 'ann@gmial.com', 'live');
     * // { verdict: 'risky', suggestion: 'ann@gmail.com', cached: false, ... }
     */
    async validate(
      projectId: string,
      email: string,
      mode: KeyMode = 'live',
      now = Date.now(),
    ): Promise<ValidationResult> {
      const { checks, cached } = await addressChecks(email, now);
      const suppression: SimpleCheck & SuppressionCheck = await suppressionCheck(
        deps,
        projectId,
        mode,
        checks,
      );
      const { verdict, reason } = decide(checks, suppression);
      return {
        email,
        normalized: checks.normalized,
        verdict,
        reason,
        suggestion: checks.suggestion,
        checks: {
          syntax: checks.syntax,
          domain: 'mx' in checks.domain ? { ...checks.domain, mx: [...checks.domain.mx] } : checks.domain,
          disposable: checks.disposable,
          role_account: checks.role_account,
          typo: checks.typo,
          suppression,
        },
        cached,
        checked_at: iso(checks.checkedAt),
      };
    },
  };
}

export type ValidationService = ReturnType<typeof createValidationService>;
