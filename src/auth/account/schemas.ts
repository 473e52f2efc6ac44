/** Request and response shapes of the account routes beyond sign-in (login/schemas.ts has those). */
import { z } from 'zod';
import { sixDigits } from '../login/schemas.js';
import { PASSWORD_MAX } from '../login/password.js';

export const totpStartBody = z.strictObject({
  current_password: z
    .string({ error: 'must be a string' })
    .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`)
    .optional()
    .describe(
      'Required when the account has a password and the session signed in more than ten minutes ago: proof that it is still you.',
    ),
  email_code: sixDigits
    .optional()
    .describe(
      'Required when the account has no password and the session signed in more than ten minutes ago: a sign-in code from `POST /v1/auth/request-code`, used up here.',
    ),
});

export const sessionListItem = z.object({
  id: z.string(),
  current: z.boolean().describe('The session making this request.'),
  organization_id: z.string(),
  auth_method: z.enum(['email_code', 'password']),
  created_at: z.string().describe('When it signed in.'),
  last_seen_at: z.string().describe('Its last request (to within a few seconds).'),
  expires_at: z.string().describe('When it ends unless used again: the idle timeout or its lifetime.'),
  ip_network: z
    .string()
    .nullable()
    .describe('The network it signed in from: the address truncated to its /24 (IPv4) or /48 (IPv6).'),
  client: z
    .string()
    .nullable()
    .describe('The kind of client, from its user agent: "Firefox on Windows", "curl".'),
});

export const sessionList = z.object({ data: z.array(sessionListItem) });

export const sessionsEnded = z.object({ ended: z.number().int().describe('How many sessions ended.') });

export const sessionIdParams = z.strictObject({ id: z.string().min(1).max(64) });
