/**
 * Config sections that protect a sender's reputation: address validation and the reputation
 * center (thresholds, dedicated-IP warm-up, mailbox-provider connections).
 */
import { z } from 'zod';
import { duration, MAX_TIMER_MS } from './fields.js';

export const validationSection = z
  .strictObject({
    cache_ttl: duration()
      .default('1h')
      .describe(
        'How long the checks of an address (syntax, DNS, disposable, role, typo) are reused; results then say cached = true. 0s turns the cache off. Suppression is always asked fresh.',
      ),
    cache_entries: z.int().min(0).default(100_000).describe('Most addresses the validation cache holds.'),
    requests_per_minute: z
      .int()
      .min(0)
      .default(600)
      .describe('Validations per minute per project (POST /v1/validation); 0 is unlimited.'),
    dns_timeout_ms: z
      .int()
      .positive()
      .max(MAX_TIMER_MS)
      .default(3000)
      .describe(
        'Timeout of one DNS query of a validation; a domain that does not answer in time is unknown.',
      ),
    disposable_domains_file: z
      .string()
      .default('')
      .describe(
        'A file of extra disposable domains, one a line ("#" comments; "!domain" takes a domain off the packaged list); re-read when it changes. Empty uses the packaged list only.',
      ),
  })
  .describe(
    'Address validation (POST /v1/validation). It never probes the recipient’s mail server over SMTP.',
  );
