/**
 * The signed-in person's own account: changing a credential (with proof it is still them, ASVS
 * 3.7.1), a notice mail at every change (2.2.3), the other sessions ended after a password change
 * (3.3.3), and their sessions listed and ended (3.3.4). Each change is audited under a name.
 */
import type { AuditService } from '../../audit/service.js';
import { AppError, conflict, notFound } from '../../platform/http/errors.js';
import type { SessionPrincipal } from '../../platform/http/principal.js';
import type { Logger } from '../../platform/log.js';
import type { SystemMailService } from '../../system-mail/service.js';
import { unauthorized } from '../bearer.js';
import type { Locale } from '../login/locales.js';
import type { Client, LoginService } from '../login/service.js';
import type { SessionService } from '../session/service.js';
import type { UserService } from '../users/service.js';
import type { UserRow } from '../users/store.js';
import { clientClass, networkOf } from './client.js';
import { type NoticeKind, noticeMail } from './notice.js';

export interface AccountDeps {
  readonly users: UserService;
  readonly sessions: SessionService;
  readonly login: Pick<LoginService, 'countAttempt' | 'reauthenticate'>;
  readonly systemMail: Pick<SystemMailService, 'send'>;
  readonly audit: AuditService;
  readonly product: string;
  /**
   * `accounts.reauthentication_window`: a sign-in this recent is proof enough to start enrolling
   * an authenticator (GitHub's "sudo mode"): the person just gave their credentials.
   */
  readonly recentSignInMs: number;
  readonly log: Logger;
}

/** One of the person's sessions as the sessions list shows it. */
export interface SessionListItem {
  readonly id: string;
  readonly current: boolean;
  readonly organization_id: string;
  readonly auth_method: string;
  readonly created_at: string;
  readonly last_seen_at: string;
  readonly expires_at: string;
  readonly ip_network: string | null;
  readonly client: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function createAccountService(deps: AccountDeps) {
  const { users, sessions, login, systemMail, audit } = deps;
  const log = deps.log.child({ capability: 'auth' });

  const me = async (principal: SessionPrincipal): Promise<UserRow> => {
    const user = await users.findById(principal.userId);
    if (!user) throw unauthorized('Invalid session token.');
    return user;
  };

  /** Mails the notice; a refused mail (a suppressed address) is logged, never undoes the change. */
  const notify = async (
    user: UserRow,
    kind: NoticeKind,
    locale: Locale,
    client: Client | null,
    othersEnded: boolean,
  ): Promise<void> => {
    const mail = noticeMail(locale, kind, {
      product: deps.product,
      email: user.email,
      at: Date.now(),
      client,
      othersEnded,
    });
    await systemMail
      .send({ to: user.email, ...mail, tags: { kind: 'security_notice', change: kind, locale } })
      .catch((error: unknown) => log.warn({ err: error, user_id: user.id }, 'security notice not sent'));
  };

  /** A wrong proof of the current credential (a 403) is audited like a failed sign-in. */
  const audited = async <T>(work: Promise<T>, user: UserRow, proof: string): Promise<T> => {
    try {
      return await work;
    } catch (error) {
      if (error instanceof AppError && error.code === 'forbidden')
        await audit.record({
          action: 'account.reauthentication_failed',
          target: user.id,
          details: { proof },
        });
      throw error;
    }
  };

  return {
    notify,

    /** Sets or changes the password; ends the person's other sessions; says how many ended. */
    async changePassword(
      principal: SessionPrincipal,
      input: { password: string; current_password?: string | undefined },
      locale: Locale,
      client: Client,
    ): Promise<{ other_sessions_ended: number }> {
      const user = await me(principal);
      login.countAttempt(user.email, client);
      const first = user.password_hash === null;
      await audited(users.changePassword(user, input.password, input.current_password), user, 'password');
      const ended = await sessions.revokeOthers(user.id, principal.sessionId);
      await audit.record({
        action: first ? 'account.password_set' : 'account.password_change',
        target: user.id,
        details: { other_sessions_ended: ended },
      });
      await notify(user, first ? 'password_set' : 'password_changed', locale, client, ended > 0);
      return { other_sessions_ended: ended };
    },

    /**
     * Starts enrolment after the person proves it is them (password, or a mailed code), unless
     * the session signed in within `recentSignInMs` and no proof was given.
     */
    async startTotp(
      principal: SessionPrincipal,
      proof: { current_password?: string | undefined; email_code?: string | undefined },
      client: Client,
    ): Promise<{ secret: string; otpauth_uri: string }> {
      const user = await me(principal);
      if (user.totp_secret_sealed !== null)
        throw conflict(
          'Two-factor authentication is already on; turn it off first to enrol a new authenticator.',
        );
      const proofGiven = proof.current_password !== undefined || proof.email_code !== undefined;
      if (
        proofGiven ||
        !(await sessions.signedInSince(principal.sessionId, Date.now() - deps.recentSignInMs))
      )
        await login.reauthenticate(user, proof, client);
      return users.startTotp(user);
    },

    async confirmTotp(
      principal: SessionPrincipal,
      code: string,
      locale: Locale,
      client: Client,
    ): Promise<string[]> {
      const user = await me(principal);
      const codes = await users.confirmTotp(user, code);
      await audit.record({ action: 'account.totp_enable', target: user.id });
      await notify(user, 'totp_enabled', locale, client, false);
      return codes;
    },

    /** Turns TOTP off with a current code or a recovery code (counted like a sign-in). */
    async disableTotp(principal: SessionPrincipal, code: string, locale: Locale, client: Client) {
      const user = await me(principal);
      login.countAttempt(user.email, client);
      await audited(users.disableTotp(user, code), user, 'totp_or_recovery_code');
      await audit.record({ action: 'account.totp_disable', target: user.id });
      await notify(user, 'totp_disabled', locale, client, false);
    },

    /** New recovery codes, after a current TOTP code; the earlier ones stop working. */
    async regenerateRecoveryCodes(
      principal: SessionPrincipal,
      code: string,
      locale: Locale,
      client: Client,
    ): Promise<string[]> {
      const user = await me(principal);
      login.countAttempt(user.email, client);
      const codes = await audited(users.regenerateRecoveryCodes(user, code), user, 'totp_code');
      await audit.record({ action: 'account.recovery_codes_regenerate', target: user.id });
      await notify(user, 'recovery_codes', locale, client, false);
      return codes;
    },

    /** The person's live sessions in every organization, newest first; the current one marked. */
    async listSessions(principal: SessionPrincipal): Promise<SessionListItem[]> {
      return (await sessions.listLive(principal.userId)).map(({ row, lastSeenAt, endsAt }) => ({
        id: row.id,
        current: row.id === principal.sessionId,
        organization_id: row.organization_id,
        auth_method: row.auth_method,
        created_at: iso(row.created_at),
        last_seen_at: iso(lastSeenAt),
        expires_at: iso(endsAt),
        ip_network: networkOf(row.ip_address),
        client: clientClass(row.user_agent),
      }));
    },

    /** Ends one of the person's other sessions; the current one ends by signing out. */
    async endSession(principal: SessionPrincipal, id: string): Promise<void> {
      if (id === principal.sessionId)
        throw conflict('This is the session making the request; sign out (POST /v1/auth/logout) to end it.');
      if (!(await sessions.revokeOwn(principal.userId, id))) throw notFound(`Session ${id}`);
      await audit.record({ action: 'account.session_end', target: id });
    },

    /** Ends every session of the person but the current one; how many ended. */
    async endOtherSessions(principal: SessionPrincipal): Promise<{ ended: number }> {
      const ended = await sessions.revokeOthers(principal.userId, principal.sessionId);
      await audit.record({ action: 'account.sessions_end_others', details: { ended } });
      return { ended };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
