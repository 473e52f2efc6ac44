/** `GET`/`PUT /v1/tracking` (spec §2.10, §4.4) and the public tracking endpoints: request and response shapes. */
import { z } from 'zod';

export const trackingSettingsRequest = z.strictObject({
  opens_enabled: z.boolean({ error: 'must be true or false' }).describe('Add an open pixel to HTML mail.'),
  clicks_enabled: z
    .boolean({ error: 'must be true or false' })
    .describe('Point the http(s) links of HTML mail at the tracking host.'),
  retention_days: z
    .int({ error: 'must be a whole number of days' })
    .min(1, { error: 'must be 1 to 365' })
    .max(365, { error: 'must be 1 to 365' })
    .describe('Days recorded opens and clicks are kept, 1 to 365.'),
  custom_domain: z
    .string({ error: 'must be a host name' })
    .min(1, { error: 'must be a host name; leave the field out for none' })
    .max(253, { error: 'must be at most 253 characters' })
    .optional()
    .describe(
      'A host under one of the project\'s domains (e.g. "links.acme.com") with a CNAME (or A/AAAA) record pointing at this server; left out for none.',
    ),
});

export type TrackingSettingsRequest = z.infer<typeof trackingSettingsRequest>;

export const trackingSettings = z.object({
  opens_enabled: z.boolean(),
  clicks_enabled: z.boolean(),
  retention_days: z.int(),
  custom_domain: z.string().nullable().describe('The custom tracking domain, or null.'),
  tracking_domain: z
    .string()
    .describe(
      'The host tracked mail uses now: the custom domain once its DNS is verified, else the default.',
    ),
  dns: z
    .object({
      status: z
        .enum(['none', 'pending', 'verified', 'failed'])
        .describe(
          'none: no custom domain; pending: DNS could not be asked yet; failed: it does not point here.',
        ),
      target: z.string().describe('The host the custom domain must point at (server.public_url).'),
      reason: z.string().nullable(),
      checked_at: z.iso.datetime().nullable(),
    })
    .describe('Where the custom domain stands in DNS.'),
  updated_at: z.iso.datetime().nullable().describe('Null while the project uses the defaults.'),
});

export type TrackingSettingsView = z.infer<typeof trackingSettings>;

export const tokenParams = z.object({ token: z.string() });
