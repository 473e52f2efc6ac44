/** Request and response shapes of `/v1/suppressions` (spec §2.10 "Suppression request"). */
import { z } from 'zod';

export const SUPPRESSION_REASONS = [
  'hard_bounce',
  'spam_complaint',
  'unsubscribe',
  'manual_block',
  'repeated_soft_bounce',
  'abuse_decision',
  'invalid_address',
] as const;

/** Where a suppression came from; `api` for `POST /v1/suppressions`. */
export const SUPPRESSION_SOURCES = [
  'api',
  'bounce',
  'complaint',
  'unsubscribe',
  'operator',
  'validation',
] as const;

export const suppressionRequest = z.strictObject({
  email: z.string().min(1).max(320).describe('The address to suppress; matched case-insensitively.'),
  reason: z.enum(SUPPRESSION_REASONS).describe('Why the address may not be sent to.'),
});

export const suppressionRecord = z.object({
  id: z.string().describe('sup_...'),
  email: z.string().describe('The normalized address: lower case, domain in punycode.'),
  reason: z.enum(SUPPRESSION_REASONS),
  source: z.enum(SUPPRESSION_SOURCES),
  message_id: z.string().nullable().describe('The message whose bounce or complaint caused it, if any.'),
  created_at: z.string().describe('When the address was first suppressed.'),
  updated_at: z.string().describe('When the reason last changed.'),
});

export const suppressionList = z.object({
  data: z.array(suppressionRecord),
  has_more: z.boolean(),
});

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Items per page, 1 to 100.'),
  after: z.string().max(64).optional().describe('Return items after this suppression ID (newest first).'),
  reason: z.enum(SUPPRESSION_REASONS).optional().describe('Only suppressions with this reason.'),
});

export const emailParams = z.strictObject({
  email: z.string().min(1).max(320).describe('The suppressed address (URL-encoded).'),
});

export type SuppressionRecord = z.infer<typeof suppressionRecord>;
