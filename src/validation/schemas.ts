/** `POST /v1/validation` (spec §4.1, §2.10 "Validation request"): the request and the result. */
import { z } from 'zod';
import { ADDRESS_MAX_OCTETS } from './syntax.js';

export const validationRequest = z.strictObject({
  email: z
    .string()
    .min(1, 'is empty')
    .max(
      ADDRESS_MAX_OCTETS,
      `is longer than ${ADDRESS_MAX_OCTETS} characters, the most an address can have (RFC 5321 §4.5.3.1.3)`,
    )
    .describe(
      `The address to validate (at most ${ADDRESS_MAX_OCTETS} characters; a longer string is a 400). ` +
        'Anything shorter gets a verdict, a malformed address included.',
    ),
});

const CHECK_RESULTS = ['pass', 'warn', 'fail', 'unknown', 'skipped'] as const;

const check = z.object({
  result: z
    .enum(CHECK_RESULTS)
    .describe(
      'pass; warn (makes the address risky); fail; unknown (DNS failed); skipped (an earlier check failed).',
    ),
  reason: z.string().describe('What the check found, in one sentence.'),
});

export const validationResult = z.object({
  email: z.string().describe('The address as sent.'),
  normalized: z
    .string()
    .nullable()
    .describe(
      'How Posthorn matches the address (lower case, domain in A-labels); null when it is not an address.',
    ),
  verdict: z
    .enum(['deliverable', 'risky', 'undeliverable', 'unknown'])
    .describe(
      'undeliverable: not an address, suppressed in this project, or its domain takes no mail; unknown: DNS failed; ' +
        'risky: a likely typo, a disposable domain or a role account; deliverable: none of these.',
    ),
  reason: z.string().describe('The deciding check’s reason.'),
  suggestion: z
    .string()
    .nullable()
    .describe(
      'The address with a common provider’s domain corrected (ann@gmial.com → ann@gmail.com), if likely.',
    ),
  checks: z.object({
    syntax: check.describe('RFC 5321/5322 syntax, internationalised domains (IDNA) and length limits.'),
    domain: check
      .extend({
        mx: z.array(z.string()).optional().describe('Mail hosts in the order a sender tries them.'),
        implicit: z.boolean().optional().describe('No MX records: the domain’s own A/AAAA receives mail.'),
        null_mx: z.boolean().optional().describe('The domain publishes a null MX (RFC 7505).'),
      })
      .describe('MX records, else the implicit A/AAAA; a null MX is undeliverable. No SMTP probing.'),
    disposable: check
      .extend({ listed: z.string().optional().describe('The listed disposable domain that matched.') })
      .describe('A throwaway mail domain (a maintained list, extended by the operator).'),
    role_account: check
      .extend({ role: z.string().optional().describe('The role the local part names.') })
      .describe('admin@, postmaster@, sales@, ...'),
    typo: check
      .extend({ suggestion: z.string().optional().describe('The provider domain meant.') })
      .describe('A likely misspelling of a common provider’s domain.'),
    suppression: check
      .extend({
        suppression_reason: z.string().optional().describe('Why the address is suppressed.'),
        suppressed_at: z.string().optional().describe('When it was suppressed.'),
      })
      .describe('Whether the address is on this project’s suppression list (always asked fresh).'),
  }),
  cached: z
    .boolean()
    .describe(
      'True when the address checks came from the cache (validation.cache_ttl); suppression is always fresh.',
    ),
  checked_at: z.string().describe('When the address checks ran (earlier than now when cached).'),
});

export type ValidationResult = z.infer<typeof validationResult>;
