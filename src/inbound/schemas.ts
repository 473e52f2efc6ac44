/**
 * Request and response shapes of `/v1/inbound/...` (spec §2.10 "Inbound route create" and
 * "Inbound reply", §4.4, §8). They validate and feed the OpenAPI document.
 */
import { z } from 'zod';

// RFC 5322 §3.2.3 dot-atom, as a local part (RFC 5321 §4.5.3.1.1: at most 64 octets).
const localPart = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

export const routeCreateRequest = z.strictObject({
  domain_id: z
    .string({ error: 'must be a domain ID' })
    .min(1, 'must not be empty')
    .max(64, 'must be at most 64 characters')
    .describe('A verified domain of the project (dom_...).'),
  local_part: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty; omit local_part for a catch-all route')
    .max(64, 'must be at most 64 characters (RFC 5321 §4.5.3.1.1)')
    .regex(localPart, 'must be a valid local part (the part before "@"), e.g. "support"')
    .nullable()
    .optional()
    .describe('The part before "@"; omit (or null) for a catch-all route of the domain.'),
});

export const routeRecord = z.object({
  id: z.string().describe('rte_...'),
  domain_id: z.string(),
  domain: z.string().describe('The domain name.'),
  local_part: z.string().nullable().describe('null for the catch-all route.'),
  address: z.string().describe('What the route receives: `support@example.com` or `*@example.com`.'),
  created_at: z.string(),
});

export const routeList = z.object({ data: z.array(routeRecord), has_more: z.boolean() });

export const idParams = z.strictObject({ id: z.string().min(1).max(64) });

export const listQuery = z.strictObject({
  limit: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be between 1 and 100')
    .max(100, 'must be between 1 and 100')
    .default(50)
    .describe('Items per page, 1 to 100.'),
  after: z
    .string()
    .max(64)
    .optional()
    .describe('Return messages received before this inbound ID (newest first).'),
});

const scanState = z.enum(['pending', 'clean', 'infected', 'error']);

export const attachmentRecord = z.object({
  id: z.string().describe('att_...'),
  filename: z.string().nullable(),
  content_type: z.string(),
  size_bytes: z.int(),
  content_id: z.string().nullable(),
  disposition: z.string(),
  sha256: z.string(),
  scan_state: scanState.describe('Only a `clean` attachment can be downloaded.'),
  scan_signature: z.string().nullable().describe('The ClamAV signature when infected.'),
  download_url: z.string().nullable().describe('Set once the attachment is clean.'),
});

export const inboundSummary = z.object({
  id: z.string().describe('inb_...'),
  thread_id: z.string(),
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  subject: z.string(),
  attachment_count: z.int(),
  created_at: z.string(),
});

export const inboundList = z.object({ data: z.array(inboundSummary), has_more: z.boolean() });

const authResult = z.object({ result: z.string(), info: z.string() }).loose();

export const inboundMessage = inboundSummary.extend({
  route_id: z.string().nullable(),
  reply_to: z.array(z.string()),
  text: z.string().nullable(),
  html: z.string().nullable(),
  headers: z.array(z.object({ name: z.string(), value: z.string() })).describe('In message order.'),
  date: z.string().nullable().describe('The Date header.'),
  message_id: z.string().nullable().describe('The Message-ID header, without angle brackets.'),
  in_reply_to: z.string().nullable(),
  references: z.array(z.string()),
  envelope: z.object({
    mail_from: z.string(),
    rcpt_to: z.array(z.string()),
    remote_ip: z.string(),
    helo: z.string(),
    tls: z.boolean(),
  }),
  auth: z
    .object({
      spf: authResult.nullable(),
      dkim: z.array(authResult),
      dmarc: authResult.nullable(),
      arc: authResult.nullable(),
      authentication_results: z.string(),
    })
    .loose()
    .describe('SPF, DKIM, DMARC and ARC results (mailauth).'),
  attachments: z.array(attachmentRecord),
  size_bytes: z.int(),
  parse_error: z
    .string()
    .nullable()
    .describe(
      'Set when the message could not be parsed (e.g. over 1,000 MIME parts): only its header fields are shown, and the whole message is the attachment `original.eml`.',
    ),
  processing: z
    .enum(['complete', 'failed'])
    .describe(
      '`failed`: the message was stored without being processed, because processing it failed repeatedly or stopped the server (a suspected poison message). Its envelope and header fields are shown; text and html are null, no authentication was run, and the whole message is the attachment `original.eml`, never scanned and never downloadable (`scan_state` `error`). `processing_error` says why. An operator can have it processed fully with `posthorn inbound retry <id>`.',
    ),
  processing_error: z
    .string()
    .nullable()
    .describe('Why the message was stored without processing; null when `processing` is `complete`.'),
});

export const threadMessage = z.object({
  direction: z.enum(['inbound', 'outbound']),
  id: z.string().describe('inb_... for received mail, msg_... for mail sent by Posthorn.'),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  status: z.string().optional().describe('Outbound messages: the delivery status.'),
  created_at: z.string(),
});

export const threadRecord = z.object({
  id: z.string().describe('thr_...'),
  subject: z.string(),
  created_at: z.string(),
  last_message_at: z.string(),
  messages: z.array(threadMessage).describe('Oldest first; one page of `limit`.'),
  has_more: z.boolean().describe('More messages follow: ask again with `after` = the last ID shown.'),
});

export const threadQuery = z.strictObject({
  limit: listQuery.shape.limit,
  after: z
    .string()
    .max(64)
    .optional()
    .describe('Return the messages after this one (an inb_ or msg_ ID of the thread), oldest first.'),
});

export const replyRequest = z
  .strictObject({
    from: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .describe('A sender on a verified domain.'),
    html: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
    text: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
  })
  .refine((body) => body.html !== undefined || body.text !== undefined, {
    message: 'html or text is required',
    path: ['html'],
  });

export const replyResponse = z.object({
  id: z.string().describe('The reply message, msg_...'),
  status: z.string(),
  created_at: z.string(),
  thread_id: z.string(),
  in_reply_to: z.string().nullable(),
});

export const replyHeaders = {
  'Idempotency-Key': {
    description: 'Required, at most 200 characters; a repeated key returns the first reply.',
    required: true,
  },
};

export type RouteCreateRequest = z.output<typeof routeCreateRequest>;
export type ReplyRequest = z.output<typeof replyRequest>;
