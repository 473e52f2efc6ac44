/** Request and response shapes of `/v1/domains` (spec §2.10 "Create domain", §4.3). */
import { z } from 'zod';

export const createDomainRequest = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(300)
    .describe('The domain to send from, e.g. "example.com"; IDNs are accepted.'),
  region: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be a short lower-case label such as "eu" or "us"')
    .default('eu')
    .describe('A label recorded with the domain; a self-hosted appliance sends from where it runs.'),
});

export const RECORD_STATUSES = ['pending', 'verified', 'failed', 'missing'] as const;
export const DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const;

export const dnsRecord = z.object({
  purpose: z.enum(['spf', 'dkim', 'dmarc', 'return_path', 'tracking']),
  type: z.enum(['TXT', 'MX', 'CNAME', 'A', 'AAAA']),
  host: z.string().describe('Fully qualified name to publish the record at.'),
  name: z.string().describe('The same name relative to the domain; "@" for the domain itself.'),
  value: z.string().describe('Ready to paste.'),
  value_strings: z
    .array(z.string())
    .optional()
    .describe(
      'TXT only: the value split into strings of at most 255 characters, for DNS hosts that need that.',
    ),
  priority: z.int().optional().describe('MX only.'),
  required: z.boolean().describe('Whether verification needs it (SPF and the RSA DKIM key).'),
  status: z
    .enum(RECORD_STATUSES)
    .describe(
      'pending: not checked yet; verified; failed: wrong or absent; missing: an optional record is absent.',
    ),
  reason: z.string().optional().describe('Why the record is failed or missing.'),
  policy: z
    .string()
    .optional()
    .describe('DMARC only: the policy that applies (p=, or sp= of an inherited record).'),
  inherited_from: z
    .string()
    .optional()
    .describe(
      'DMARC only: the organizational domain whose _dmarc record covers this domain, when it publishes none of its own (RFC 7489 §6.6.3).',
    ),
  checked_at: z.string().nullable(),
});

export const configIssue = z.object({
  level: z
    .enum(['required', 'advised'])
    .describe(
      'required: the records in `withheld` are not proposed and mail cannot go out right until an operator sets `keys`; advised: the value is not seen from the internet.',
    ),
  keys: z.array(z.string()).describe('Config keys of the appliance to set, the usual one first.'),
  withheld: z
    .array(z.enum(['spf', 'return_path', 'tracking']))
    .describe('Purposes of records left out of `records` until the keys are set.'),
  message: z.string().describe('What is wrong and what to set, in one sentence.'),
});

export const domainRecord = z.object({
  id: z.string().describe('dom_...'),
  name: z.string(),
  region: z.string(),
  status: z
    .enum(DOMAIN_STATUSES)
    .describe('verified once SPF and DKIM pass; never while SPF is withheld (see config_issues).'),
  records: z.array(dnsRecord),
  config_issues: z
    .array(configIssue)
    .describe(
      "What this appliance's config lacks for a domain to be published right: a record naming a local value (localhost, 127.0.0.1) is withheld, never proposed. Empty when the config names public values.",
    ),
  created_at: z.string(),
  updated_at: z.string(),
  verified_at: z.string().nullable(),
  last_checked_at: z.string().nullable(),
});

export const domainList = z.object({ data: z.array(domainRecord), has_more: z.boolean() });

export const idParams = z.strictObject({ id: z.string().min(1).max(64).describe('Domain ID (dom_...).') });

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Items per page, 1 to 100.'),
  after: z.string().max(64).optional().describe('Return items after this domain ID (newest first).'),
});

export type DomainRecord = z.infer<typeof domainRecord>;
export type DnsRecordView = z.infer<typeof dnsRecord>;
