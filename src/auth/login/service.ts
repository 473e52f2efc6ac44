/**
 * Signing in (spec §5 rules 3–4): a six-digit code mailed through Posthorn's own pipeline, or a
 * password; either followed by the TOTP code (or a recovery code) when two-factor is on. Every
 * failure is the same 401, whether the address exists or not, and takes as long; every request
 * counts against the per-address and per-IP limits; failures are audited.
 */

import type { Actor } from '../../audit/actor.js';
import type { AuditService } from '../../audit/service.js';
import type { MemberStore } from '../../members/store.js';
import type { AuthMethod } from '../../platform/db/tables.js';
import { AppError, badRequest } from '../../platform/http/errors.js';
import type { Logger } from '../../platform/log.js';
import type { ProjectService } from '../../projects/service.js';
import type { SystemMailService } from '../../system-mail/service.js';
import type { SessionService, SessionView } from '../session/service.js';
import type { SecondFactor, UserService } from '../users/service.js';
import type { UserRow } from '../users/store.js';
import { createSignInLimiter, type SignInLimits } from './abuse.js';
import type { Locale } from './locales.js';
import { loginCodeMail } from './mail.js';
import { verifyPassword } from './password.js';
import { newLoginCode, sameHash } from './secrets.js';

export const CODE_LIFETIME_S = 600;
export const MAX_CODE_TRIES = 5;

export interface Client {
  readonly ip: string | null;
  readonly userAgent: string | null;
}

export interface LoginSuccess {
  readonly token: string;
  readonly session: SessionView;
}

export interface LoginDeps {
  readonly users: UserService;
  readonly sessions: SessionService;
  readonly members: Pick<MemberStore, 'listByUser'>;
  readonly projects: Pick<ProjectService, 'firstOf'>;
  readonly systemMail: Pick<SystemMailService, 'send'>;
  readonly audit: AuditService;
  readonly limits: SignInLimits;
  readonly product: string;
  readonly log: Logger;
}

const invalidBody = (field: string, message: string) =>
  badRequest(`Invalid body: ${field}: ${message}.`, [{ path: field, message }]);

const loginFailed = (message: string) =>
  new AppError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

export function createLoginService(deps: LoginDeps) {
  const { users, sessions, members, projects, systemMail, audit } = deps;
  const log = deps.log.child({ capability: 'auth' });
  const limiter = createSignInLimiter(deps.limits);

  const actor = (user: UserRow | undefined, method: AuthMethod, client: Client): Actor => ({
    id: user?.id ?? 'anonymous',
    kind: 'session',
    authMethod: method,
    ip: client.ip,
    userAgent: client.userAgent === null ? null : client.userAgent.slice(0, 512),
  });

  const failed = async (
    user: UserRow | undefined,
    email: string,
    method: AuthMethod,
    client: Client,
    reason: string,
  ): Promise<never> => {
    const [membership] = user ? await members.listByUser(user.id) : [];
    // Repeats within a minute are one record with a count (audit/coalesce.ts).
    await audit.recordBounded({
      actor: actor(user, method, client),
      action: 'auth.login_failed',
      organizationId: membership?.organization_id ?? null,
      target: user?.id ?? null,
      details: { email, reason },
    });
    throw loginFailed(
      method === 'password'
        ? 'Invalid email, password or authenticator code.'
        : 'Invalid or expired login code, or invalid authenticator code.',
    );
  };

  /** A signed-in person's proof that failed: audited like a failed sign-in, then a 403. */
  const refused = async (user: UserRow, proof: string, message: string): Promise<never> => {
    await audit.record({ action: 'account.reauthentication_failed', target: user.id, details: { proof } });
    throw new AppError('forbidden', message);
  };

  /** The session of a user whose credentials passed: their first organization's first project. */
  const open = async (user: UserRow, method: AuthMethod, client: Client): Promise<LoginSuccess> => {
    const memberships = await members.listByUser(user.id);
    for (const membership of memberships) {
      const project = await projects.firstOf(membership.organization_id);
      if (!project) continue;
      const made = await sessions.create({
        userId: user.id,
        email: user.email,
        organizationId: membership.organization_id,
        projectId: project.id,
        method,
        ip: client.ip,
        userAgent: client.userAgent,
      });
      await audit.record({
        actor: actor(user, method, client),
        action: 'auth.login',
        organizationId: membership.organization_id,
        projectId: project.id,
        target: made.session.id,
      });
      return made;
    }
    return failed(user, user.email, method, client, 'no organization with a project');
  };

  const mailCode = async (user: UserRow, locale: Locale): Promise<void> => {
    const code = newLoginCode();
    const now = Date.now();
    const expiresAt = now + CODE_LIFETIME_S * 1000;
    await users.store.putLoginCode({
      user_id: user.id,
      code_hash: users.loginCodeHash(user.id, code),
      expires_at: expiresAt,
      created_at: now,
    });
    const mail = loginCodeMail(locale, code, expiresAt, deps.product);
    await systemMail.send({ to: user.email, ...mail, tags: { kind: 'login_code', locale } });
  };

  return {
    /** Counts a request that checks a credential of a signed-in person (429 past the limits). */
    countAttempt(email: string, client: Client): void {
      limiter.attempt(email, client.ip);
    },

    /**
     * The signed-in person proves it is still them before a sensitive change (ASVS 3.7.1): the
     * current password when the account has one, else a fresh sign-in code mailed by
     * `request-code` (taken like a sign-in takes it). Counted like a sign-in; 400 when the proof
     * the account needs is missing, 403 when it is wrong.
     */
    async reauthenticate(
      user: UserRow,
      proof: { current_password?: string | undefined; email_code?: string | undefined },
      client: Client,
    ): Promise<void> {
      limiter.attempt(user.email, client.ip);
      if (user.password_hash !== null) {
        if (proof.current_password === undefined)
          throw invalidBody('current_password', 'is required: confirm it is you with your current password');
        if (!(await verifyPassword(user.password_hash, proof.current_password)))
          return refused(user, 'password', 'current_password is not the current password.');
        return;
      }
      if (proof.email_code === undefined)
        throw invalidBody(
          'email_code',
          'is required: this account has no password; confirm it is you with a code from POST /v1/auth/request-code',
        );
      const row = await users.store.findLoginCode(user.id);
      const hash = users.loginCodeHash(user.id, proof.email_code);
      const fresh = row !== undefined && row.expires_at > Date.now() && row.attempts < MAX_CODE_TRIES;
      if (!fresh || !sameHash(row.code_hash, hash)) {
        if (row) await users.store.countWrongTry(user.id, row.code_hash);
        return refused(user, 'email_code', 'email_code is not a live sign-in code of this account.');
      }
      if (!(await users.store.takeLoginCode(user.id, row.code_hash)))
        return refused(user, 'email_code', 'email_code was used already.');
    },

    /**
     * Counts the request and, for a known member, mails a new code (replacing the last one). The
     * answer never says whether the address is known: the mail is made after the reply.
     */
    requestCode(email: string, locale: Locale, client: Client): void {
      limiter.attempt(email, client.ip);
      limiter.codeMailed(email);
      void (async () => {
        const user = await users.findByEmail(email);
        if (!user || (await members.listByUser(user.id)).length === 0) return;
        await mailCode(user, locale);
      })().catch((error: unknown) => log.warn({ err: error }, 'login code not sent'));
    },

    async verifyCode(
      input: { email: string; code: string } & SecondFactor,
      client: Client,
    ): Promise<LoginSuccess> {
      limiter.attempt(input.email, client.ip);
      const user = await users.findByEmail(input.email);
      const row = user && (await users.store.findLoginCode(user.id));
      const hash = users.loginCodeHash(user?.id ?? 'nobody', input.code);
      if (!user || !row) return failed(user, input.email, 'email_code', client, 'no live code');
      if (row.expires_at <= Date.now())
        return failed(user, input.email, 'email_code', client, 'code expired');
      if (row.attempts >= MAX_CODE_TRIES)
        return failed(user, input.email, 'email_code', client, 'too many wrong tries');
      if (!sameHash(row.code_hash, hash)) {
        await users.store.countWrongTry(user.id, row.code_hash);
        return failed(user, input.email, 'email_code', client, 'wrong code');
      }
      if (!(await users.secondFactor(user, input))) {
        await users.store.countWrongTry(user.id, row.code_hash);
        return failed(user, input.email, 'email_code', client, 'second factor missing or wrong');
      }
      if (!(await users.store.takeLoginCode(user.id, row.code_hash)))
        return failed(user, input.email, 'email_code', client, 'code already used');
      return open(user, 'email_code', client);
    },

    async loginPassword(
      input: { email: string; password: string } & SecondFactor,
      client: Client,
    ): Promise<LoginSuccess> {
      limiter.attempt(input.email, client.ip);
      const user = await users.findByEmail(input.email);
      if (!(await verifyPassword(user?.password_hash ?? null, input.password)) || !user)
        return failed(user, input.email, 'password', client, 'wrong password');
      if (!(await users.secondFactor(user, input)))
        return failed(user, input.email, 'password', client, 'second factor missing or wrong');
      return open(user, 'password', client);
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
