/**
 * Request and response shapes of `/v1/broadcasts` (spec §3.2, §4.4; the spec leaves the bodies
 * open). The create body reads as Resend's broadcast and listmonk's campaign do: an audience, a
 * sender, a subject and HTML and/or text (or a published template), a name; scheduling is its
 * own call with an optional `send_at`. docs/broadcasts.md shows them.
 */
import { z } from 'zod';
import { type Mailbox, parseMailbox } from '../platform/mail-address.js';

export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;
export const BROADCAST_STATUSES = ['draft', 'scheduled', 'sending', 'sent', 'cancelled', 'failed'] as const;

const timestamp = z.string().describe('ISO 8601');

const mailbox = z
  .string({ error: 'must be a string holding an email address' })
  .transform((value, ctx): Mailbox => {
    const parsed = parseMailbox(value);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: 'custom', message: `must be a valid email address: ${parsed.reason}` });
    return z.NEVER;
  });

const replyTo = z
  .union([mailbox.transform((m) => [m]), z.array(mailbox).max(10, 'must hold at most 10 addresses')], {
    error: 'must be an email address or an array of them',
  })
  .describe('One address or an array of up to 10 (as Resend takes it).');

const subject = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(998, 'must be at most 998 characters (RFC 5322 §2.1.1)')
  .refine((value) => !/[\r\n]/.test(value), 'must not contain line breaks');

const tags = z
  .record(z.string().min(1).max(256), z.string({ error: 'values must be strings' }).max(256), {
    error: 'must be an object mapping strings to strings',
  })
  .refine((value) => Object.keys(value).length <= 50, 'must have at most 50 entries')
  .describe("Labels echoed in every message's events, as a send's tags.");

const fields = {
  audience_id: z.string({ error: 'is required: the audience (aud_...) to send to' }).min(1).max(64),
  name: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .describe('For people; defaults to the subject.'),
  from: mailbox.describe('Sender name and address; its domain must be a verified domain of the project.'),
  reply_to: replyTo,
  subject: subject.describe(
    'May use {{first_name}}, {{last_name}}, {{email}}, {{metadata.NAME}}; not with template.',
  ),
  html: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .describe(
      'Placeholders as in subject, HTML-escaped, and {{unsubscribe_url}}; a footer link is added when it is not used.',
    ),
  text: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
  template: z
    .string({ error: 'must be a template ID or slug' })
    .min(1)
    .max(255)
    .describe(
      'ID or slug of a published template (its subject and bodies); its variables must be contact fields.',
    ),
  tags,
};

type ContentFields = { subject?: unknown; html?: unknown; text?: unknown; template?: unknown };

function checkContent(value: ContentFields, ctx: z.RefinementCtx, required: boolean): void {
  const direct = value.subject !== undefined || value.html !== undefined || value.text !== undefined;
  if (value.template !== undefined && direct) {
    ctx.addIssue({
      code: 'custom',
      path: ['template'],
      message: 'cannot be combined with subject, html or text',
    });
    return;
  }
  if (!required || value.template !== undefined) return;
  if (value.subject === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['subject'],
      message: 'is required (or give a published template)',
    });
  if (value.html === undefined && value.text === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['html'],
      message: 'give html, text or both (or a published template)',
    });
}

export const broadcastRequest = z
  .strictObject({
    audience_id: fields.audience_id,
    name: fields.name.optional(),
    from: fields.from,
    reply_to: fields.reply_to.optional(),
    subject: fields.subject.optional(),
    html: fields.html.optional(),
    text: fields.text.optional(),
    template: fields.template.optional(),
    tags: fields.tags.optional(),
  })
  .superRefine((value, ctx) => checkContent(value, ctx, true));

export type BroadcastRequest = z.output<typeof broadcastRequest>;

export const broadcastUpdate = z
  .strictObject({
    audience_id: fields.audience_id.optional(),
    name: fields.name.optional(),
    from: fields.from.optional(),
    reply_to: fields.reply_to.nullable().optional(),
    subject: fields.subject.nullable().optional(),
    html: fields.html.nullable().optional(),
    text: fields.text.nullable().optional(),
    template: fields.template.nullable().optional(),
    tags: fields.tags.optional(),
  })
  .superRefine((value, ctx) => checkContent(value, ctx, false));

export type BroadcastUpdate = z.output<typeof broadcastUpdate>;

export const scheduleRequest = z.strictObject({
  send_at: z.iso
    .datetime({
      offset: true,
      error: 'must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T09:00:00Z',
    })
    .transform((value) => Date.parse(value))
    .optional()
    .describe('When to start sending, up to 30 days ahead; leave out (or send no body) to send now.'),
});

export const progress = z.object({
  recipients: z
    .int()
    .nullable()
    .describe('Contacts it goes to: counted when sending starts, exact once it is sent; null before.'),
  sent: z.int().describe('Messages queued so far (one per contact).'),
  delivered: z.int().describe("Accepted by the recipient's mail server."),
  bounced: z.int(),
  complained: z.int(),
  failed: z.int(),
  unsubscribed: z.int().describe("Contacts who left through this broadcast's link or address."),
  suppressed: z.int().describe('Subscribed contacts left out: their address is on the suppression list.'),
  prepared: z
    .int()
    .describe(
      'Messages composed and signed ahead of the send time (a broadcast scheduled ahead is prepared before it, `broadcasts.prepare_ahead`); 0 when none were.',
    ),
});

export const broadcastRecord = z.object({
  id: z.string().describe('bc_...'),
  object: z.literal('broadcast'),
  name: z.string(),
  audience_id: z.string(),
  from: z.string(),
  reply_to: z.array(z.string()),
  subject: z.string().nullable(),
  html: z.string().nullable(),
  text: z.string().nullable(),
  template: z.string().nullable(),
  tags: z.record(z.string(), z.string()),
  status: z.enum(BROADCAST_STATUSES),
  send_at: timestamp.nullable(),
  started_at: timestamp.nullable(),
  finished_at: timestamp.nullable(),
  cancelled_at: timestamp.nullable(),
  prepared_at: timestamp
    .nullable()
    .describe(
      'When every contact of a broadcast scheduled ahead was prepared; null before, or when it was not.',
    ),
  error: z.string().nullable().describe('Why a failed broadcast failed, or why a sending one waits.'),
  progress: progress.optional(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const broadcastList = z.object({ data: z.array(broadcastRecord), has_more: z.boolean() });

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Items per page, 1 to 100.'),
  after: z.string().max(64).optional().describe('Return items after this ID (newest first).'),
  status: z.enum(BROADCAST_STATUSES).optional().describe('Only broadcasts of this status.'),
});

export const idParams = z.strictObject({ id: z.string().min(1).max(64).describe('bc_...') });
