/**
 * Config sections of people rather than API keys: Posthorn's own mail (login codes, invitations,
 * status notices) and the dashboard's accounts and sessions.
 */
import { z } from 'zod';
import { parseMailbox } from '../../mail-address.js';

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
