/** `POST /v1/dedicated-ips/requests` (spec §4.4) and the dedicated-IP part of `GET /v1/reputation`. */
import { z } from 'zod';

export const dedicatedIpRequest = z.strictObject({
  monthly_volume: z
    .int()
    .positive()
    .max(10_000_000_000)
    .describe('Messages the project expects to send per month; an operator sizes the warm-up by it.'),
  reason: z.string().trim().min(1, 'is empty').max(1000).describe('Why the project needs its own IP.'),
});

export const dedicatedIpRequestView = z.object({
  id: z.string().describe('dip_...'),
  status: z.enum(['pending', 'approved', 'declined']),
  monthly_volume: z.number().int(),
  reason: z.string(),
  created_at: z.string(),
  review: z
    .object({
      decision: z.enum(['approved', 'declined']),
      note: z.string().nullable().describe('The operator’s reason when declined.'),
      ip: z.string().nullable().describe('The address assigned when approved.'),
      plan: z.string().nullable().describe('The warm-up plan when approved.'),
      reviewed_at: z.string(),
    })
    .nullable()
    .describe('The operator’s review; null while pending.'),
});

export const dedicatedIpAssignmentView = z.object({
  ip: z.string().describe('The address this project’s mail leaves from.'),
  request_id: z.string(),
  assigned_at: z.string(),
  plan: z.object({
    name: z.string(),
    daily_limits: z.array(z.number().int()).describe('Messages per provider lane on day 1, 2, ...'),
  }),
  warmup: z.object({
    day: z.number().int().describe('Day of the plan today (1 on the day of the assignment).'),
    days: z.number().int(),
    complete: z.boolean().describe('The plan is over: the address has no warm-up limit.'),
    limit_per_provider_today: z.number().int().nullable(),
    sent_today: z
      .record(z.string(), z.number().int())
      .describe('Recipients sent from the address today (UTC) per provider lane; the rest went out shared.'),
  }),
});

export const dedicatedIpsReport = z.object({
  requests: z
    .array(dedicatedIpRequestView)
    .describe('The project’s requests, newest first, with their reviews.'),
  assignments: z.array(dedicatedIpAssignmentView),
});

export type DedicatedIpRequestView = z.infer<typeof dedicatedIpRequestView>;
export type DedicatedIpsReport = z.infer<typeof dedicatedIpsReport>;
