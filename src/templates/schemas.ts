/** Request and response shapes of `/v1/templates` (spec §2.6, §2.7, §4.2). */
import { z } from 'zod';
import { RESERVED_NAMES, VARIABLE_NAME } from './placeholders.js';

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Bodies well past Gmail's 102 KB clipping point are refused outright. */
export const MAX_BODY_CHARS = 1_000_000;

export const templateRequest = z
  .strictObject({
    slug: z
      .string()
      .max(100)
      .regex(
        SLUG,
        'must be lower-case letters and digits in groups joined by single hyphens, e.g. "password-reset"',
      )
      .optional()
      .describe('Unique per project; sends may name the template by it.'),
    name: z.string().trim().min(1).max(80).describe('A name for people.'),
    subject: z
      .string()
      .min(1)
      .max(300)
      .refine((value) => !/[\r\n]/.test(value), 'must not contain line breaks')
      .describe('May use {{placeholders}}; no line breaks, as for a send.'),
    html_body: z
      .string()
      .min(1)
      .max(MAX_BODY_CHARS)
      .optional()
      .describe('Values are HTML-escaped when rendered.'),
    text_body: z.string().min(1).max(MAX_BODY_CHARS).optional().describe('Values are inserted as they are.'),
    variables: z
      .array(
        z
          .string()
          .min(1)
          .max(64)
          .regex(
            VARIABLE_NAME,
            'must start with a letter or "_" and use only letters, digits, "_", "." and "-"',
          )
          .refine(
            (name) => !RESERVED_NAMES.has(name),
            'cannot be "__proto__": a send\'s variables object can never hold that key',
          ),
      )
      .max(50)
      .describe('Exactly the placeholders the subject and bodies use.'),
  })
  .superRefine((value, ctx) => {
    if (value.html_body === undefined && value.text_body === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['html_body'],
        message: 'at least one of html_body and text_body is required',
      });
    }
    const seen = new Set<string>();
    for (const [index, name] of value.variables.entries()) {
      if (seen.has(name))
        ctx.addIssue({ code: 'custom', path: ['variables', index], message: `"${name}" is listed twice` });
      seen.add(name);
    }
  });

export type TemplateRequest = z.infer<typeof templateRequest>;

const timestamp = z.string().describe('ISO 8601');

export const templateRecord = z.object({
  id: z.string().describe('tpl_...'),
  slug: z.string().nullable(),
  name: z.string(),
  subject: z.string(),
  html_body: z.string().nullable(),
  text_body: z.string().nullable(),
  variables: z.array(z.string()),
  version: z.int().describe('The newest version: the current draft.'),
  published_version: z.int().nullable().describe('The version sends use; null until published.'),
  has_unpublished_changes: z.boolean().describe('The current draft is newer than the published version.'),
  created_at: timestamp,
  updated_at: timestamp,
});

export const templateSummary = templateRecord.pick({
  id: true,
  slug: true,
  name: true,
  version: true,
  published_version: true,
  has_unpublished_changes: true,
  created_at: true,
  updated_at: true,
});

export const templateList = z.object({ data: z.array(templateSummary), has_more: z.boolean() });

export const VERSION_STATUSES = ['published', 'draft', 'archived'] as const;

export const templateVersion = z.object({
  id: z.string().describe('tpv_...'),
  version: z.int(),
  status: z
    .enum(VERSION_STATUSES)
    .describe('published: what sends use; draft: the newest, unpublished version; archived: any other.'),
  name: z.string(),
  subject: z.string(),
  html_body: z.string().nullable(),
  text_body: z.string().nullable(),
  variables: z.array(z.string()),
  created_at: timestamp,
  published_at: timestamp.nullable().describe('When this version last became the published one.'),
});

export const versionList = z.object({
  template_id: z.string(),
  published_version: z.int().nullable(),
  data: z.array(templateVersion).describe('Newest first.'),
  has_more: z.boolean(),
});

export const ISSUE_SEVERITIES = ['error', 'warning', 'info'] as const;

export const checkResult = z.object({
  template_id: z.string(),
  version: z.int(),
  checked_at: timestamp,
  passed: z.boolean().describe('False when any issue has severity error.'),
  html_bytes: z.int(),
  link_count: z.int(),
  image_count: z.int(),
  issues: z.array(
    z.object({
      code: z.string().describe('See docs/template-check.md for every code.'),
      severity: z.enum(ISSUE_SEVERITIES),
      message: z.string(),
      target: z.string().optional(),
    }),
  ),
  domains: z.array(
    z.object({
      name: z.string(),
      status: z.string(),
      spf_status: z.string(),
      dkim_status: z.string(),
      dmarc_status: z.string(),
    }),
  ),
  tracking_domain: z.string(),
  tracking_dns_ok: z.boolean(),
});

export type CheckResult = z.infer<typeof checkResult>;

export const idParams = z.strictObject({
  id: z.string().min(1).max(120).describe('Template ID (tpl_...) or slug.'),
});

export const versionParams = z.strictObject({
  id: z.string().min(1).max(120).describe('Template ID (tpl_...) or slug.'),
  version: z.coerce.number().int().min(1).describe('An existing version number.'),
});

export const checkQuery = z.strictObject({
  version: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Check this version instead of the current draft.'),
});

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Items per page, 1 to 100.'),
  after: z.string().max(64).optional().describe('Return items after this ID (newest first).'),
});
