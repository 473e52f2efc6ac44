/**
 * Config sections of people rather than API keys: Posthorn's own mail (login codes, invitations,
 * status notices) and the dashboard's accounts and sessions.
 */
import { z } from 'zod';
import { parseMailbox } from '../../mail-address.js';
import { duration } from './fields.js';

const optionalMailbox = z.string().superRefine((value, ctx) => {
  if (value === '') return;
  const parsed = parseMailbox(value);
  if (!parsed.ok)
    ctx.addIssue({
      code: 'custom',
      message: `must be a mailbox such as "Posthorn <no-reply@mail.example.com>", or empty: ${parsed.reason}`,
    });
});

export const systemMailSection = z
  .strictObject({
    from: optionalMailbox
      .default('')
      .describe(
        'Sender of Posthorn\'s own mail: login codes, member invitations, status notices. Empty uses sandbox.from. Its domain is added to the operator\'s system project (organization "Posthorn system") with DKIM keys on the first such mail; publish the records `GET /v1/domains` shows for that project (issue it a key with `posthorn admin keys create --project`) so receivers trust the mail.',
      ),
  })
  .describe("Posthorn's own mail, sent through its own pipeline as messages of the system project.");

export const accountsSection = z
  .strictObject({
    session_idle_timeout: duration({ min: '1s' })
      .default('30m')
      .describe(
        'A dashboard session unused for this long ends; every request made with it moves the end on. The default is OWASP ASVS level 2 (3.3.2); longer is allowed.',
      ),
    session_lifetime: duration({ min: '1s' })
      .default('12h')
      .describe(
        'A dashboard session ends this long after sign-in, however much it is used. The default is OWASP ASVS level 2 (3.3.2); longer is allowed.',
      ),
    reauthentication_window: duration({ min: '0s' })
      .default('10m')
      .describe(
        'Within this long of signing in, the sign-in is proof enough to start enrolling an authenticator; later the current password (or a mailed code) is asked again. 0s always asks.',
      ),
    login_attempts_per_hour_per_ip: z
      .int()
      .positive()
      .default(100)
      .describe(
        'Sign-in requests (request-code, verify-code, login-password) per hour from one client address; past it they get 429 with Retry-After. The per-address limit is limits.login_attempts_per_hour.',
      ),
    login_codes_per_hour: z
      .int()
      .positive()
      .default(5)
      .describe('Login codes mailed per hour to one address (further requests get 429, and no mail).'),
  })
  .describe('Dashboard accounts: sessions and sign-in limits.');
