/** Request and response shapes of sign-in and the session (spec §2.9, §2.10, §4.6). */
import { z } from 'zod';
import { parseMailbox } from '../../platform/mail-address.js';
import { LOCALES } from './locales.js';
import { PASSWORD_MAX, PASSWORD_MIN } from './password.js';
import { RECOVERY_PATTERN } from './secrets.js';

/** A plain address (no display name), compared lower-cased as accounts are stored. */
export const accountEmail = z
  .string({ error: 'must be a string holding an email address' })
  .max(254, 'must be at most 254 characters')
  .transform((value, ctx) => {
    const trimmed = value.trim();
    const parsed = parseMailbox(trimmed);
    if (!parsed.ok || parsed.value.name !== '' || trimmed.includes('<')) {
      ctx.addIssue({ code: 'custom', message: 'must be an email address such as ann@example.com' });
      return z.NEVER;
    }
    return parsed.value.email.toLowerCase();
  })
  .meta({ format: 'email', description: 'An email address.' });

export const sixDigits = z
  .string({ error: 'must be a string of 6 digits' })
  .regex(/^\d{6}$/, 'must be exactly 6 digits');

const password = z
  .string({ error: 'must be a string' })
  .refine((value) => [...value].length >= PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .refine((value) => [...value].length <= PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`)
  .meta({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX });

const secondFactor = {
  totp_code: sixDigits
    .optional()
    .describe('The authenticator app code; required when two-factor authentication is on.'),
  recovery_code: z
    .string({ error: 'must be a string' })
    .regex(RECOVERY_PATTERN, 'must be a recovery code such as "abcde-23456"')
    .optional()
    .describe('Instead of totp_code: one of the recovery codes shown at enrolment; each works once.'),
};

export const requestCodeBody = z.strictObject({
  email: accountEmail,
  locale: z
    .enum(LOCALES, { error: `must be one of ${LOCALES.join(', ')}` })
    .default('en')
    .describe('Language of the mail with the code.'),
});

export const verifyCodeBody = z.strictObject({
  email: accountEmail,
  code: sixDigits.describe('The six-digit code from the mail.'),
  ...secondFactor,
});

export const passwordLoginBody = z.strictObject({
  email: accountEmail,
  password: password.describe(`${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`),
  ...secondFactor,
});

export const codeAccepted = z.object({ ok: z.literal(true), expires_in: z.literal(600) });

export const sessionSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  email: z.string(),
  organization_id: z.string(),
  project_id: z.string(),
  project_status: z.enum(['sandbox', 'active', 'suspended']),
  auth_method: z.enum(['email_code', 'password']),
  created_at: z.string(),
  last_seen_at: z.string(),
  expires_at: z.string(),
  ip_address: z.string().optional(),
  user_agent: z.string().optional(),
});

export const loginSuccess = z.object({
  token: z.string().describe('The session token (`phs_...`), used as a Bearer credential; shown once.'),
  session: sessionSchema,
});

export const changePasswordBody = z.strictObject({
  password: password.describe(`The new password, ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`),
  current_password: z
    .string({ error: 'must be a string' })
    .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`)
    .optional()
    .describe('Required once the account has a password.'),
});

export const totpEnrolment = z.object({
  secret: z.string().describe('The base32 secret, for apps that cannot read the URI.'),
  otpauth_uri: z.string().describe('otpauth://totp/... for a QR code.'),
});

export const totpConfirmBody = z.strictObject({ code: sixDigits.describe('The code the app shows now.') });

export const totpDisableBody = z.strictObject({
  code: z
    .string({ error: 'must be a string' })
    .refine(
      (value) => /^\d{6}$/.test(value) || RECOVERY_PATTERN.test(value),
      'must be 6 digits or a recovery code such as "abcde-23456"',
    )
    .describe('The code the app shows now, or an unused recovery code.'),
});

export const recoveryCodes = z.object({
  recovery_codes: z.array(z.string()).describe('Ten single-use codes; shown this once.'),
});
