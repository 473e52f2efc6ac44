/** `GET /v1/analytics` (spec §2.8, §4.1): the query and the report. */
import { z } from 'zod';

export const analyticsQuery = z.strictObject({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(90)
    .default(30)
    .describe('Days to report, ending today (UTC), 1 to 90.'),
});

const rate = z.number().min(0).max(1);

export const dailyEntry = z.object({
  day: z.iso.date().describe('A UTC day; every day of the window is listed, empty ones with zeros.'),
  accepted: z.number().int().describe('Recipients accepted that day.'),
  queued: z.number().int().describe('Of those, still waiting for their first attempt (or scheduled).'),
  delivered: z.number().int(),
  bounced: z.number().int(),
  deferred: z.number().int().describe('Of those, waiting for a retry after a temporary failure.'),
  complained: z.number().int(),
});

export const providerEntry = z.object({
  provider: z
    .string()
    .describe('The delivery lane (gmail, outlook, ..., default; "unrouted" before one is chosen).'),
  total: z.number().int(),
  queued: z.number().int(),
  delivered: z.number().int(),
  bounced: z.number().int(),
  deferred: z.number().int(),
  complained: z.number().int(),
  median_delivery_latency_ms: z.number().int().describe('0 when nothing was delivered.'),
  delivery_rate: rate,
});

export const analyticsReport = z.object({
  days: z.number().int(),
  sent: z.number().int().describe('Recipients accepted in the window.'),
  delivered: z.number().int(),
  bounced: z.number().int(),
  deferred: z.number().int(),
  complained: z.number().int(),
  delivery_rate: rate.describe('delivered / sent; 0 when nothing was sent.'),
  bounce_rate: rate.describe('bounced / sent.'),
  complaint_rate: rate.describe('complained / delivered.'),
  unique_opens: z.number().int().describe('Recipients who opened at least once, machine opens excluded.'),
  unique_clicks: z.number().int().describe('Recipients who clicked at least once, machine clicks excluded.'),
  open_rate: z.number().min(0).describe('unique_opens / delivered (people only).'),
  click_rate: z.number().min(0).describe('unique_clicks / delivered (people only).'),
  machine_opens: z
    .number()
    .int()
    .describe('Opens left out because a machine made them (privacy proxies, pre-fetchers, scanners).'),
  machine_clicks: z
    .number()
    .int()
    .describe('Clicks left out because a machine made them (security scanners).'),
  median_delivery_latency_ms: z.number().int().describe('From queued to accepted by the MX; 0 when none.'),
  daily: z.array(dailyEntry),
  providers: z.array(providerEntry),
});

export type AnalyticsReport = z.infer<typeof analyticsReport>;
