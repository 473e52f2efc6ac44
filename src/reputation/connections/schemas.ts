/**
 * Mailbox-provider connections (spec §4.8, §2.10 "Reputation connection create"): the request, the
 * connection as listed (never its credential), a sync's answer, and the data as
 * `GET /v1/reputation` shows it.
 */
import { z } from 'zod';

export const PROVIDERS = ['provider_a_postmaster', 'provider_b_snds'] as const;

export const connectionCreate = z.strictObject({
  provider: z
    .enum(PROVIDERS)
    .describe('provider_a_postmaster: Google Postmaster Tools; provider_b_snds: Microsoft SNDS.'),
  credential: z
    .string()
    .min(1, 'is empty')
    .max(4096)
    .describe(
      'Write-only, stored sealed, never returned. Postmaster Tools: a JSON object {"client_id", "client_secret", "refresh_token"} ' +
        '(postmaster.readonly scope), or an access token; SNDS: the automated data access key.',
    ),
});

export const connectionParams = z.strictObject({ id: z.string().describe('rep_...') });

export const connectionView = z.object({
  id: z.string().describe('rep_...'),
  provider: z.enum(PROVIDERS),
  status: z
    .enum(['pending', 'ok', 'failing'])
    .describe(
      'pending: never synced; ok: the last sync worked; failing: the last attempt failed (data kept).',
    ),
  created_at: z.string(),
  last_synced_at: z.string().nullable(),
  last_error: z.string().nullable().describe('Why the last sync failed, if it did.'),
  last_error_at: z.string().nullable(),
});

export const providerItem = z.object({
  kind: z.enum(['traffic', 'ip_status']),
  subject: z.string().describe('The domain (Postmaster Tools) or IP / IP range (SNDS).'),
  day: z.string().describe('YYYY-MM-DD'),
  data: z.record(z.string(), z.unknown()).describe("The provider's figures for that day (snake_case)."),
});

export const connectionList = z.object({ data: z.array(connectionView) });

export const syncResult = z.object({
  connection: connectionView,
  fetched: z.object({
    items: z.number().int(),
    subjects: z.array(z.string()),
    days: z.array(z.string()),
  }),
  data: z.array(providerItem),
});

export const providerReport = z.array(
  connectionView.extend({
    data: z.array(providerItem).describe('What the provider reported for the last 7 days, newest first.'),
  }),
);

export type ConnectionView = z.infer<typeof connectionView>;
