/** Query and response shapes of the dashboard's message history (spec §2.3–2.5, §4.8, §8). */
import { z } from 'zod';
import type { MessageStatus } from '../../platform/db/tables.js';
import { SORTS } from './store.js';

export const MESSAGE_STATUSES: readonly MessageStatus[] = [
  'scheduled',
  'awaiting_approval',
  'queued',
  'sending',
  'deferred',
  'delivered',
  'partially_delivered',
  'bounced',
  'failed',
  'cancelled',
  'rejected',
  'suppressed',
];

const integer = (field: string, min: number, max: number | undefined, fallback: number) =>
  z.coerce
    .number({ error: `must be an integer` })
    .int('must be an integer')
    .min(min, `must be at least ${min}`)
    .max(max ?? Number.MAX_SAFE_INTEGER, max === undefined ? 'is too large' : `must be at most ${max}`)
    .default(fallback)
    .describe(field);

export const historyQuery = z.strictObject({
  page: integer('Page number, from 1.', 1, 100_000, 1),
  page_size: integer('Messages per page, 10 to 100.', 10, 100, 20),
  search: z
    .string()
    .max(200, 'must be at most 200 characters')
    .optional()
    .describe(
      'Part of a message ID, sender, recipient or subject, any case. A search finds at most the 10,000 newest matching messages; `total` is exact up to there.',
    ),
  status: z
    .enum(MESSAGE_STATUSES as [MessageStatus, ...MessageStatus[]], {
      error: `must be one of ${MESSAGE_STATUSES.join(', ')}`,
    })
    .optional(),
  sort: z.enum(SORTS, { error: `must be one of ${SORTS.join(', ')}` }).default('created_at'),
  order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('desc'),
  mode: z
    .enum(['live', 'test'], { error: 'must be live or test' })
    .default('live')
    .describe('Messages sent with live keys (default) or with test keys.'),
});

export const listItem = z.object({
  id: z.string(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  status: z.string(),
  created_at: z.string(),
});

export const historyPage = z.object({
  data: z.array(listItem),
  page: z.int(),
  page_size: z.int(),
  total: z.int(),
  total_pages: z.int(),
  sort: z.string(),
  order: z.enum(['asc', 'desc']),
});

export const messageDetail = z.object({
  id: z.string(),
  from: z.string(),
  recipients: z.array(
    z.object({
      email: z.string(),
      type: z.enum(['to', 'cc', 'bcc']),
      status: z.string(),
      mta_queue_id: z
        .string()
        .optional()
        .describe("The queue ID the recipient's MX gave in its 250 reply, when it gave one."),
    }),
  ),
  reply_to: z.array(z.string()),
  subject: z.string(),
  headers: z.record(z.string(), z.string()),
  tags: z.record(z.string(), z.string()),
  attachments: z.array(
    z.object({ id: z.string(), filename: z.string(), content_type: z.string(), size_bytes: z.int() }),
  ),
  status: z.string(),
  channel: z.enum(['transactional', 'marketing']),
  created_at: z.string(),
  updated_at: z.string(),
  html: z.string().optional(),
  text: z.string().optional(),
  scheduled_at: z.string().optional(),
});
