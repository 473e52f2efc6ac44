/**
 * Request and response schemas of the send API (spec §2.1–2.3, §4.1, §8). They validate, name the
 * failing field and rule in every 400, and feed the OpenAPI document. Addresses come out parsed
 * (see platform/mail-address.ts); `send_at` comes out as epoch milliseconds.
 */
import { z } from 'zod';
import { type Mailbox, parseMailbox } from '../platform/mail-address.js';
import { checkHeaders } from './headers.js';

export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;

const shown = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);

const mailbox = z
  .string({ error: 'must be a string holding an email address' })
  .transform((value, ctx): Mailbox => {
    const parsed = parseMailbox(value);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({
      code: 'custom',
      message: `must be a valid email address: ${shown(value)} ${parsed.reason}`,
    });
    return z.NEVER;
  })
  .meta({ description: 'An email address, optionally with a display name: `Name <addr@example.com>`.' });

const addressList = (field: string, min: number, max: number) =>
  z
    .array(mailbox, { error: `must be an array of email addresses` })
    .min(min, `must hold at least ${min} address${min === 1 ? '' : 'es'}`)
    .max(max, `must hold at most ${max} addresses`)
    .describe(`${field}: ${min > 0 ? `${min} to ` : 'up to '}${max} addresses.`);

const noLineBreaks = (value: string) => !/[\r\n]/.test(value);

const stringMap = (what: string, maxEntries: number, maxKey: number, maxValue: number) =>
  z
    .record(
      z
        .string()
        .min(1, `${what} names must not be empty`)
        .max(maxKey, `${what} names must be at most ${maxKey} characters`),
      z
        .string({ error: `${what} values must be strings` })
        .max(maxValue, `${what} values must be at most ${maxValue} characters`),
      { error: `must be an object mapping strings to strings` },
    )
    .refine((value) => Object.keys(value).length <= maxEntries, `must have at most ${maxEntries} entries`);

const sendAt = z.iso
  .datetime({
    offset: true,
    error: 'must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T09:00:00Z',
  })
  // The time bounds (future, 30 days ahead) are checks.ts's `checkSendAt`, applied only once the
  // Idempotency-Key found no earlier send to replay: a retry after send_at passed replays.
  .transform((value) => Date.parse(value))
  .describe('Schedule the send for this time; up to 30 days ahead. Omit to send now.');

export const sendShape = {
  from: mailbox.describe(
    'Sender display name and address; the domain must be verified, or the shared sandbox sender.',
  ),
  to: addressList('Recipients', 1, 100),
  cc: addressList('Cc recipients', 0, 100).optional(),
  bcc: addressList('Bcc recipients', 0, 100).optional(),
  reply_to: addressList('Reply-To addresses', 0, 100).optional(),
  subject: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(998, 'must be at most 998 characters (RFC 5322 §2.1.1)')
    .refine(noLineBreaks, 'must not contain line breaks')
    .optional(),
  html: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
  text: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
  tags: stringMap('tag', 50, 256, 256).optional().describe('Labels echoed in events and analytics.'),
  template: z
    .string({ error: 'must be a template ID or slug' })
    .min(1, 'must not be empty')
    .max(255, 'must be at most 255 characters')
    .optional()
    .describe('ID or slug of a published template; not combined with subject/html/text.'),
  variables: z
    .record(z.string(), z.string({ error: 'values must be strings' }), {
      error: 'must be an object mapping strings to strings',
    })
    // A template declares at most 50 variables of at most 64 characters (templates/schemas.ts).
    .refine((value) => Object.keys(value).length <= 50, 'must have at most 50 entries')
    .refine(
      (value) => Object.keys(value).every((name) => name.length <= 64),
      'variable names must be at most 64 characters',
    )
    .optional()
    .describe(
      'Exactly the variables the published template declares (at most 50); HTML values are escaped. The rendered subject and bodies must keep to the limits of a direct send.',
    ),
  send_at: sendAt.optional(),
  track_opens: z.boolean({ error: 'must be true or false' }).optional(),
  track_clicks: z.boolean({ error: 'must be true or false' }).optional(),
  headers: z
    .record(z.string(), z.string({ error: 'values must be strings' }), {
      error: 'must be an object mapping header names to strings',
    })
    .optional()
    .describe(
      'Only In-Reply-To, References, List-Unsubscribe and List-Unsubscribe-Post (RFC 8058); message IDs and URIs up to 900 characters, values up to 4000.',
    ),
  attachments: z
    .never({ error: 'are not supported; host the file and link to it from the message' })
    .optional()
    .describe('Not supported: any value is refused with 400.'),
};

type SendFields = {
  subject?: string | undefined;
  html?: string | undefined;
  text?: string | undefined;
  template?: string | undefined;
  variables?: Record<string, string> | undefined;
  headers?: Record<string, string> | undefined;
};

/** Spec §2.1: exactly one content combination, and only the allowed custom headers. */
function checkContent(value: SendFields, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  const bodyGiven = value.html !== undefined || value.text !== undefined;
  if (value.template !== undefined) {
    for (const field of ['subject', 'html', 'text'] as const) {
      if (value[field] !== undefined)
        issue(field, 'cannot be combined with template (the template supplies it)');
    }
  } else if (value.subject === undefined && !bodyGiven) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: 'needs content: subject with html and/or text, or template with variables',
    });
  } else {
    if (value.subject === undefined) issue('subject', 'is required with html or text');
    if (!bodyGiven) issue('html', 'html or text is required with subject');
    if (value.variables !== undefined) issue('variables', 'is only allowed with template');
  }
  for (const problem of checkHeaders(value.headers ?? {})) issue('headers', problem);
}

export const sendRequest = z.strictObject(sendShape).superRefine(checkContent);

export const batchItem = z
  .strictObject({
    ...sendShape,
    idempotency_key: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(255, 'must be at most 255 characters')
      .optional()
      .describe(
        'This item’s own idempotency key; without it the Idempotency-Key header plus "-<index>" is used.',
      ),
  })
  .superRefine(checkContent);

export type SendRequest = z.output<typeof sendRequest>;
export type BatchItem = z.output<typeof batchItem>;

/** The batch item's JSON Schema, for the OpenAPI document (items are validated one by one). */
function itemJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(batchItem, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  const { $schema: _, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/** The batch envelope only; each item is validated on its own so one bad item fails alone. */
export const batchRequest = z.strictObject({
  emails: z
    .array(z.unknown(), { error: 'must be an array of send requests' })
    .min(1, 'must hold at least 1 email')
    .max(100, 'must hold at most 100 emails')
    .meta({ items: itemJsonSchema() })
    .describe('1 to 100 send requests, each optionally with `idempotency_key`.'),
});

export const sendResponse = z.object({
  id: z.string().describe('Message ID, `msg_<id>`.'),
  status: z.string().describe('`queued` on acceptance, `scheduled` with send_at; later the current status.'),
  created_at: z.string().describe('ISO 8601 date-time.'),
});

/** `GET /v1/emails/{id}`: the send response and each recipient's status. */
export const messageResponse = sendResponse.extend({
  recipients: z
    .array(
      z.object({
        email: z.string().describe('The address, normalized (domain lower-cased, punycode).'),
        type: z.enum(['to', 'cc', 'bcc']),
        status: z
          .string()
          .describe(
            '`queued`, `deferred`, `delivered`, `bounced`, `complained`, `suppressed`, `failed` or `cancelled` (the scheduled send was cancelled).',
          ),
      }),
    )
    .describe('Every recipient, in the order submitted (to, cc, bcc).'),
});

const batchAccepted = z.object({ index: z.int(), id: z.string(), status: z.string() });
const batchFailed = z.object({
  index: z.int(),
  status_code: z.int(),
  error: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export const batchResponse = z.object({ data: z.array(z.union([batchAccepted, batchFailed])) });

export const listItem = z.object({
  id: z.string(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  status: z.string(),
  created_at: z.string(),
  scheduled_at: z.string().optional(),
});
export const listResponse = z.object({ data: z.array(listItem), has_more: z.boolean() });

export const listQuery = z.strictObject({
  limit: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be between 1 and 100')
    .max(100, 'must be between 1 and 100')
    .default(50),
  after: z
    .string()
    .regex(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a message ID (msg_...) from an earlier page')
    .optional()
    .describe('Return messages older than this ID (the last ID of the previous page).'),
});

export const messageParams = z.strictObject({ id: z.string().min(1) });

export const idempotencyHeader = {
  'Idempotency-Key': {
    description:
      '1 to 255 characters; a repeat within 24 hours returns the first message and creates nothing.',
  },
};
