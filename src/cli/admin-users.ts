/**
 * `posthorn admin users set-password|reset-totp|list`: an operator helps a person who cannot sign
 * in. Setting a password or turning TOTP off ends every session of that person, is audited
 * (actor `cli`) in each of their organizations, and mails them a notice (in English: no request
 * names a language).
 */
import { notFound } from '../platform/http/errors.js';
import { passwordProblem } from '../auth/users/service.js';
import { type Command, type Group, requireOption, UsageError } from './command.js';
import { type AdminContext, withAdmin } from './context.js';
import { printTable } from './output.js';

/** Reads standard input to its end; one trailing line break is not part of the password. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function findUser(ctx: AdminContext, email: string) {
  const user = await ctx.services.accounts.users.findByEmail(email.trim().toLowerCase());
  if (!user) throw notFound(`A user with the address ${email}`);
  return user;
}

/** Ends the user's sessions and writes one audit record per organization they belong to. */
async function afterReset(ctx: AdminContext, userId: string, action: string): Promise<number> {
  const { accounts, audit } = ctx.services;
  const ended = await accounts.sessions.revokeUser(userId);
  for (const membership of await accounts.memberStore.listByUser(userId)) {
    await audit.record({
      actor: 'cli',
      action,
      organizationId: membership.organization_id,
      target: userId,
      details: { sessions_revoked: ended },
    });
  }
  return ended;
}

const setPassword: Command = {
  kind: 'command',
  name: 'set-password',
  summary: "Set a user's password, read from standard input; their sessions end.",
  options: { email: { type: 'string' } },
  help: {
    email:
      'The user\'s address. Required. Pipe the password in: `printf %s "$PW" | posthorn admin users set-password --email ...`.',
  },
  async run(values, _positionals, io) {
    const email = requireOption(values, 'email');
    if (process.stdin.isTTY)
      io.err('Type the password, then Enter and Ctrl-D (it is shown as you type; prefer a pipe).');
    const password = await readStdin();
    const problem = passwordProblem(password, [email, ...email.split(/[@.+_-]/)]);
    if (problem) throw new UsageError(`The password read from standard input ${problem}.`);
    const ended = await withAdmin(values, async (ctx) => {
      const user = await findUser(ctx, email);
      await ctx.services.accounts.users.setPassword(user, password);
      const kind = user.password_hash === null ? 'password_set' : 'password_changed';
      const ended = await afterReset(ctx, user.id, 'user.set_password');
      await ctx.services.accounts.account.notify(user, kind, 'en', null, ended > 0);
      return ended;
    });
    io.out(`Password set for ${email}; ${ended} session(s) ended.`);
    return 0;
  },
};

const resetTotp: Command = {
  kind: 'command',
  name: 'reset-totp',
  summary: "Turn a user's authenticator (TOTP) off and void their recovery codes; their sessions end.",
  options: { email: { type: 'string' } },
  help: { email: "The user's address. Required." },
  async run(values, _positionals, io) {
    const email = requireOption(values, 'email');
    const ended = await withAdmin(values, async (ctx) => {
      const user = await findUser(ctx, email);
      const wasOn = user.totp_secret_sealed !== null;
      await ctx.services.accounts.users.resetTotp(user);
      const ended = await afterReset(ctx, user.id, 'user.reset_totp');
      if (wasOn) await ctx.services.accounts.account.notify(user, 'totp_disabled', 'en', null, ended > 0);
      return ended;
    });
    io.out(`Two-factor authentication is off for ${email}; ${ended} session(s) ended.`);
    return 0;
  },
};

const list: Command = {
  kind: 'command',
  name: 'list',
  summary: "List an organization's members: address, role, password and TOTP set or not.",
  options: { org: { type: 'string' }, json: { type: 'boolean' } },
  help: { org: 'Organization ID (org_...) or name. Required.', json: 'Print JSON.' },
  async run(values, _positionals, io) {
    const org = requireOption(values, 'org');
    const rows = await withAdmin(values, async ({ services }) => {
      const found = await services.projects.findOrganization(org);
      if (!found) throw notFound(`Organization ${org}`);
      return services.accounts.memberStore.listWithCredentials(found.id);
    });
    const data = rows.map((row) => ({
      member_id: row.id,
      user_id: row.user_id,
      email: row.email,
      role: row.role,
      password: Boolean(row.has_password),
      totp: Boolean(row.has_totp),
      created_at: new Date(row.created_at).toISOString(),
    }));
    if (values.json) io.out(JSON.stringify({ data }, null, 2));
    else
      printTable(
        io,
        ['EMAIL', 'ROLE', 'PASSWORD', 'TOTP', 'USER', 'MEMBER'],
        data.map((d) => [
          d.email,
          d.role,
          d.password ? 'set' : '-',
          d.totp ? 'on' : '-',
          d.user_id,
          d.member_id,
        ]),
      );
    return 0;
  },
};

export const usersGroup: Group = {
  kind: 'group',
  name: 'users',
  summary: 'Help people sign in: set a password, turn TOTP off, list an organization.',
  children: [setPassword, resetTotp, list],
};
