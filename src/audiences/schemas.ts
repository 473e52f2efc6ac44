/**
 * Request and response shapes of `/v1/audiences` and their contacts (spec §2.10 audience create
 * and contact add, §4.4). The contact schema also checks every row of an import, so a refused row
 * reads exactly as a refused request would.
 */
import { z } from 'zod';
import { normalizeEmail } from '../platform/normalize-email.js';

/** A consent time may lie this far ahead of the server's clock (a client's clock runs fast). */
export const CONSENT_CLOCK_SKEW_MS = 60_000;
export const MAX_METADATA_ENTRIES = 50;

const timestamp = z.string().describe('ISO 8601');
const noLineBreaks = (value: string) => !/[\r\n]/.test(value);

export const audienceRequest = z.strictObject({
  name: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .describe('A name for people, e.g. "Newsletter".'),
  description: z
    .string({ error: 'must be a string' })
    .max(1000, 'must be at most 1000 characters')
    .optional(),
});

export const audienceUpdate = z
  .strictObject({
    name: audienceRequest.shape.name.optional(),
    description: z.string().max(1000, 'must be at most 1000 characters').nullable().optional(),
  })
  .refine((value) => value.name !== undefined || value.description !== undefined, {
    message: 'give name, description or both',
    path: ['name'],
  });

export const audienceRecord = z.object({
  id: z.string().describe('aud_...'),
  name: z.string(),
  description: z.string().nullable(),
  contacts: z.object({ subscribed: z.int(), unsubscribed: z.int() }).optional(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const audienceList = z.object({ data: z.array(audienceRecord), has_more: z.boolean() });

const email = z
  .string({ error: 'must be a string holding an email address' })
  .max(254, 'must be at most 254 characters')
  .transform((value, ctx) => {
    const normalized = normalizeEmail(value);
    if (normalized === undefined || /[\s<>]/.test(value.trim())) {
      ctx.addIssue({ code: 'custom', message: 'must be a valid email address such as ann@example.com' });
      return z.NEVER;
    }
    return normalized;
  })
  .describe('The address alone, no display name; stored normalized (domain in lower-case punycode).');

const name = (what: string) =>
  z
    .string({ error: 'must be a string' })
    .max(100, 'must be at most 100 characters')
    .refine(noLineBreaks, 'must not contain line breaks')
    .describe(`The contact's ${what}; {{${what.replace(' ', '_')}}} in a broadcast.`);

export const metadata = z
  .record(
    z.string().min(1, 'names must not be empty').max(64, 'names must be at most 64 characters'),
    z.string({ error: 'values must be strings' }).max(1000, 'values must be at most 1000 characters'),
    { error: 'must be an object mapping strings to strings' },
  )
  .refine(
    (value) => Object.keys(value).length <= MAX_METADATA_ENTRIES,
    `must have at most ${MAX_METADATA_ENTRIES} entries`,
  )
  .describe('Your own fields, strings only; {{metadata.NAME}} in a broadcast.');

/** A consent time: ISO 8601 with a zone, not in the future; epoch milliseconds once parsed. */
const consentAt = z.iso
  .datetime({
    offset: true,
    error: 'must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T09:00:00Z',
  })
  .transform((value) => Date.parse(value))
  .refine((at) => at <= Date.now() + CONSENT_CLOCK_SKEW_MS, 'must not be in the future')
  .describe('When the person gave consent; not in the future.');

export const contactRequest = z.strictObject({
  email,
  consent_source: z
    .string({ error: 'is required: say how the person agreed (e.g. "signup form")' })
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .describe('How the person agreed to receive mail, e.g. "checkout opt-in"; kept with the contact.'),
  consent_at: consentAt,
  first_name: name('first name').optional(),
  last_name: name('last name').optional(),
  metadata: metadata.optional(),
});

export type ContactRequest = z.output<typeof contactRequest>;

export const contactUpdate = z
  .strictObject({
    first_name: name('first name').nullable().optional(),
    last_name: name('last name').nullable().optional(),
    metadata: metadata.optional().describe('Replaces the metadata as a whole.'),
  })
  .refine((v) => v.first_name !== undefined || v.last_name !== undefined || v.metadata !== undefined, {
    message: 'give first_name, last_name or metadata',
    path: ['first_name'],
  });

export type ContactUpdate = z.output<typeof contactUpdate>;

export const CONTACT_STATUSES = ['subscribed', 'unsubscribed'] as const;

const historyEntry = z.object({
  kind: z.enum(CONTACT_STATUSES).describe('subscribed (with consent) or unsubscribed.'),
  source: z
    .string()
    .describe('The consent source given, or how the contact left: one_click, link, mailto, api.'),
  at: timestamp,
  broadcast_id: z.string().nullable(),
  recorded_at: timestamp,
});

export const contactRecord = z.object({
  id: z.string().describe('con_...'),
  audience_id: z.string(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  status: z.enum(CONTACT_STATUSES),
  consent_source: z.string().describe('The latest subscription consent.'),
  consent_at: timestamp,
  unsubscribed_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  history: z.array(historyEntry).optional().describe('Every subscription and unsubscription, oldest first.'),
});

export const contactList = z.object({ data: z.array(contactRecord), has_more: z.boolean() });

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Items per page, 1 to 100.'),
  after: z.string().max(64).optional().describe('Return items after this ID.'),
});

export const contactListQuery = listQuery.extend({
  status: z.enum(CONTACT_STATUSES).optional().describe('Only contacts of this status.'),
});

export const audienceParams = z.strictObject({ id: z.string().min(1).max(64).describe('aud_...') });
export const contactParams = z.strictObject({
  id: z.string().min(1).max(64).describe('aud_...'),
  contact: z.string().min(1).max(254).describe('The contact ID (con_...) or its email address.'),
});

export const importReport = z.object({
  rows: z.int().describe('Data rows read (the CSV header line is not one).'),
  created: z.int(),
  updated: z.int().describe('Existing contacts whose names, metadata or consent the row refreshed.'),
  refused: z.int(),
  errors: z
    .array(z.object({ line: z.int(), email: z.string().nullable(), error: z.string() }))
    .describe('Why each refused row was refused (the first 1000), by line of the upload.'),
  errors_truncated: z.boolean(),
});
