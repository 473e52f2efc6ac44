/**
 * Config sections of the sender's identity: DKIM signing, sending domains, the tracking host and the
 * sandbox sender.
 */
import cron from 'node-cron';
import { z } from 'zod';
// The send API's own mailbox rules: a sandbox sender it would refuse must not pass the config check.
import { parseMailbox } from '../../mail-address.js';
import { duration } from './fields.js';
import { isHostOrAddress, mailDomain } from './names.js';

const mailbox = z.string().superRefine((value, ctx) => {
  const parsed = parseMailbox(value);
  if (!parsed.ok)
    ctx.addIssue({
      code: 'custom',
      message: `must be a mailbox such as "Sandbox <sandbox@example.com>": ${parsed.reason}`,
    });
});

export const dkimSection = z
  .strictObject({
    rsa_bits: z
      .union([z.literal(1024), z.literal(2048), z.literal(4096)])
      .default(2048)
      .describe('RSA key size.'),
    ed25519: z.boolean().default(false).describe('Also sign with an ed25519 key (RFC 8463).'),
    selector_prefix: z
      .string()
      // A selector is the prefix, 6 digits of year and month, 4 random characters and, for
      // ed25519, an `e`: one DNS label of at most 63 characters (RFC 1035 §2.3.1).
      .regex(
        /^([a-z0-9][a-z0-9-]{0,51})?$/i,
        'must be the start of a DNS label: letters, digits and "-", not starting with "-", at most 52 characters',
      )
      .default('ph')
      .describe('Prefix of generated DKIM selectors.'),
    workers: z.int().min(0).max(64).default(0).describe('Signing worker threads; 0 picks one per CPU.'),
  })
  .describe('DKIM keys and signing.');

export const domainsSection = z
  .strictObject({
    recheck_cron: z
      .string()
      .regex(/^\S+(\s+\S+){4,5}$/, 'must be a cron expression with 5 or 6 fields, e.g. "17 4 * * *"')
      .refine((value) => cron.validate(value), 'must be a valid cron expression, e.g. "17 4 * * *"')
      .default('17 4 * * *')
      .describe(
        'When the DNS of every sending domain is checked again (cron, local time); a verified domain that broke is marked failed.',
      ),
    tracking_subdomain: z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be one DNS label, e.g. "track"')
      .default('track')
      .describe('Label of the optional per-domain tracking host (<label>.<domain>) the DNS records suggest.'),
  })
  .describe('Sending domains: DNS verification and its daily re-check.');

export const trackingSection = z
  .strictObject({
    domain: z
      .string()
      .refine(
        (value) => value === '' || isHostOrAddress(value),
        'must be a host name such as "links.example.com" or an IP address, or empty',
      )
      .default('')
      .describe(
        'Default tracking host (a name or an address, no scheme or port); empty uses server.public_url.',
      ),
    opens_enabled: z
      .boolean()
      .default(false)
      .describe('Whether a project tracks opens until it says otherwise (PUT /v1/tracking).'),
    clicks_enabled: z
      .boolean()
      .default(false)
      .describe('Whether a project tracks clicks until it says otherwise (PUT /v1/tracking).'),
    retention_days: z
      .int()
      .min(1)
      .max(365)
      .default(30)
      .describe('Days a project keeps its recorded opens and clicks until it says otherwise (1 to 365).'),
    scanner_window: duration()
      .default('3s')
      .describe(
        "An open or click this soon after the recipient's MX accepted the message is counted as a machine's (a security gateway scanning mail on arrival).",
      ),
  })
  .describe('Open and click tracking.');

export const sandboxSection = z
  .strictObject({
    from: mailbox
      .default('Posthorn Sandbox <sandbox@posthorn.test>')
      .describe('The shared sandbox sender projects may use before a domain is verified.'),
    test_domain: mailDomain
      .default('posthorn.test')
      .describe('Domain of the reserved test recipients (bounce@, complaint@, delay@) for ph_test_ keys.'),
  })
  .describe('Sandbox and test-mode sending.');
