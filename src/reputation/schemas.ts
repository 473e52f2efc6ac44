/** `GET /v1/reputation` (spec §4.4): the reputation center's response. */
import { z } from 'zod';
import { providerReport } from './connections/schemas.js';
import { dedicatedIpsReport } from './dedicated-ips/schemas.js';

const STATES = ['healthy', 'warning', 'at_risk'] as const;
const rate = z.number().min(0).max(1);

const lastBlock = z
  .object({
    at: z.string().describe('When the provider last answered with the block.'),
    category: z.string().describe('spam_block (a reputation block) or rate_limited.'),
    smtp_response: z.string().describe('The provider’s reply.'),
    mx_host: z.string().nullable(),
  })
  .describe('The latest reputation block or rate limit within 30 days.');

const windowReport = z.object({
  days: z.number().int().describe('1, 7 or 30: the last 24, 168 or 720 hours, up to now.'),
  delivered: z.number().int(),
  bounced: z.number().int().describe('Permanent failures, blocks included.'),
  hard_bounced: z.number().int().describe('Permanent failures that say the address is bad.'),
  deferred: z.number().int().describe('Temporary failures (each attempt).'),
  complained: z.number().int(),
  blocked: z
    .number()
    .int()
    .describe('Replies that were a reputation block or a rate limit (temporary or not).'),
  bounce_rate: rate.describe('hard_bounced / (delivered + bounced).'),
  complaint_rate: rate.describe('complained / delivered.'),
  low_volume: z
    .boolean()
    .describe('Fewer outcomes than reputation.min_volume: the window’s rates do not decide the state.'),
  state: z.enum(STATES).describe('This window’s state by its rates alone.'),
  reasons: z.array(z.string()),
});

const entity = (what: string) =>
  z.object({
    name: z.string().describe(what),
    state: z
      .enum(STATES)
      .describe(
        'The worst state of the windows with enough volume; a lane blocked in the last day is at least warning.',
      ),
    reasons: z.array(z.string()).describe('Why the state is not healthy.'),
    windows: z.array(windowReport),
    last_block: lastBlock.nullable(),
  });

export const thresholdsSchema = z.object({
  bounce_rate: z.object({ warning: rate, at_risk: rate }),
  complaint_rate: z.object({ warning: rate, at_risk: rate }),
  min_volume: z.number().int(),
});

export const reputationReport = z.object({
  generated_at: z.string(),
  state: z.enum(STATES).describe('The worst state of any sending domain or lane.'),
  thresholds: thresholdsSchema.describe('The operator’s thresholds (config [reputation]).'),
  domains: z.array(entity('The sending (From) domain.')).describe('Per sending domain, busiest first.'),
  lanes: z.array(entity('The provider lane (gmail, outlook, ..., default).')).describe('Per provider lane.'),
  blocked_lanes: z
    .array(
      z.object({
        lane: z.string(),
        blocked_1d: z.number().int(),
        blocked_7d: z.number().int(),
        last_block: lastBlock,
      }),
    )
    .describe('Lanes where a provider answered with a reputation block or a rate limit in the last 7 days.'),
  dedicated_ips: dedicatedIpsReport.describe(
    'Dedicated-IP requests with their reviews, and the assigned address with its warm-up plan and progress.',
  ),
  providers: providerReport.describe(
    'Each provider connection (Google Postmaster Tools, Microsoft SNDS) with its last 7 days of data.',
  ),
});

export type ReputationReport = z.infer<typeof reputationReport>;
