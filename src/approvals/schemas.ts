/** Request and response schemas of the send approvals (spec §2.10 "Send-approval reject", §4.8). */
import { z } from 'zod';

export const approvalParams = z.strictObject({
  id: z.string().regex(/^apr_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a send approval ID (apr_...)'),
});

export const listQuery = z.strictObject({
  status: z
    .enum(['pending', 'approved', 'rejected', 'expired', 'all'])
    .default('pending')
    .describe('Default `pending`: the sends awaiting approval.'),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  after: z.string().max(64).optional().describe('The last `id` of the previous page.'),
});

export const rejectRequest = z.strictObject({
  note: z
    .string()
    .max(500)
    .optional()
    .describe('Why; sent in the `email.rejected` event. At most 500 characters.'),
});

const messageContent = z
  .object({
    id: z.string(),
    status: z.string(),
    from: z.string(),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    bcc: z.array(z.string()),
    reply_to: z.array(z.string()),
    subject: z.string(),
    html: z.string().nullable(),
    text: z.string().nullable(),
    headers: z.record(z.string(), z.string()),
    tags: z.record(z.string(), z.string()),
    scheduled_at: z.string().nullable(),
    template: z.object({ id: z.string(), version: z.int().nullable() }).nullable(),
  })
  .nullable();

export const approvalView = z.object({
  id: z.string(),
  status: z.enum(['pending', 'approved', 'rejected', 'expired']),
  client: z.object({ client_id: z.string(), client_name: z.string() }),
  grant_id: z.string(),
  authorized_by: z.object({ user_id: z.string(), email: z.string() }),
  created_at: z.string(),
  expires_at: z.string(),
  decided_at: z.string().nullable(),
  decided_by: z.string().nullable(),
  note: z.string().nullable(),
  message: messageContent.describe('What will be sent, as the client submitted it.'),
});

export const approvalList = z.object({ data: z.array(approvalView), has_more: z.boolean() });

export const policyBody = z.strictObject({
  require_approval: z.boolean().describe('Sends by OAuth clients wait for a member (default true).'),
  trusted_clients: z
    .array(z.string().regex(/^phc_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a client ID (phc_...)'))
    .max(100)
    .describe('Clients whose sends need no approval even when approval is required.'),
});
