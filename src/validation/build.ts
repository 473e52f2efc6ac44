/** Builds the validation capability from the kernel (composition root helper). */
import type { Kernel } from '../kernel.js';
import { parseDuration } from '../platform/config/duration.js';
import { DnsResolver } from '../platform/dns/resolver.js';
import type { SuppressionService } from '../suppressions/service.js';
import { ValidationCache } from './cache.js';
import { DisposableDomains } from './disposable.js';
import { createValidationLimit } from './rate-limit.js';
import { createValidationService } from './service.js';

export function buildValidation(kernel: Kernel, services: { suppressions: SuppressionService }) {
  const config = kernel.config.validation;
  const log = kernel.log.child({ capability: 'validation' });
  const disposable = new DisposableDomains({ file: config.disposable_domains_file, log });
  // Its own resolver: one try per query within validation's timeout, so a domain whose servers do
  // not answer makes an `unknown` verdict in seconds rather than delivery's patient retries.
  const dns = new DnsResolver({
    servers: kernel.config.dns.servers,
    timeoutMs: config.dns_timeout_ms,
    tries: 1,
  });
  const service = createValidationService({
    dns,
    disposable,
    cache: new ValidationCache(parseDuration(config.cache_ttl), config.cache_entries),
    limit: createValidationLimit(config.requests_per_minute),
    suppressions: services.suppressions,
  });
  return { ...service, disposable };
}

export type Validation = ReturnType<typeof buildValidation>;
