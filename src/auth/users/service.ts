/**
 * A person's credentials: password (argon2id), TOTP enrolment with single-use recovery codes, and
 * the second-factor check both logins make. The TOTP secret is sealed with the master key, bound
 * to the user's ID; recovery codes are stored as HMACs (login/secrets.ts).
 */
import { seal, unseal } from '../../platform/crypto.js';
import type { Db } from '../../platform/db/database.js';
import { AppError, badRequest, conflict, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import { hashPassword, PASSWORD_MAX, PASSWORD_MIN, verifyPassword } from '../login/password.js';
import { codeHash, deriveCodeKey, newRecoveryCodes, RECOVERY_PATTERN } from '../login/secrets.js';
import { passwordWeakness } from '../login/strength.js';
import { newTotpSecret, otpauthUri, totpStep } from '../login/totp.js';
import type { UserRow, UserStore } from './store.js';

export interface SecondFactor {
  readonly totp_code?: string | undefined;
  readonly recovery_code?: string | undefined;
}

const TOTP_ISSUER = 'Posthorn';

/**
 * Why a new password is refused: its length (12 to 128 characters), or that it is common or easy
 * to guess (login/strength.ts; `userInputs` are words of the person, such as their address).
 */
export function passwordProblem(password: string, userInputs: readonly string[] = []): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX)
    return `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`;
  return passwordWeakness(password, userInputs);
}

/** The person's own words a password must not lean on: their address and its parts. */
const wordsOf = (user: UserRow) => [user.email, ...user.email.split(/[@.+_-]/).filter((w) => w.length > 2)];

const invalid = (field: string, message: string) =>
  badRequest(`Invalid body: ${field}: ${message}.`, [{ path: field, message }]);

export function createUserService(store: UserStore, masterKey: Buffer) {
  const codeKey = deriveCodeKey(masterKey);
  const secretOf = (user: UserRow, sealed: string) => unseal(masterKey, sealed, `totp:${user.id}`);

  /** A TOTP code valid now and never used before, claimed so it cannot be used again. */
  const acceptTotp = async (user: UserRow, sealed: string, code: string): Promise<boolean> => {
    const step = totpStep(secretOf(user, sealed), code);
    return step !== undefined && (await store.claimTotpStep(user.id, step));
  };

  return {
    findByEmail: (email: string, executor?: Db) => store.findByEmail(email, executor),
    findById: (id: string) => store.findById(id),

    /** The user with this address, made (with no credentials) when there is none. */
    async ensure(email: string, executor?: Db): Promise<{ user: UserRow; created: boolean }> {
      const existing = await store.findByEmail(email, executor);
      if (existing) return { user: existing, created: false };
      const now = Date.now();
      const row = {
        id: newId('usr', now),
        email,
        name: null,
        password_hash: null,
        totp_secret_sealed: null,
        created_at: now,
      };
      await store.insert(row, executor);
      const made = await store.findByEmail(email, executor);
      if (!made) throw new Error('user insert not visible');
      return { user: made, created: true };
    },

    /**
     * Whether the second factor passes: always when TOTP is off; otherwise a fresh TOTP code or an
     * unused recovery code (used up by this call).
     */
    async secondFactor(user: UserRow, given: SecondFactor): Promise<boolean> {
      if (user.totp_secret_sealed === null) return true;
      if (given.totp_code !== undefined) return acceptTotp(user, user.totp_secret_sealed, given.totp_code);
      if (given.recovery_code !== undefined)
        return store.useRecoveryCode(user.id, codeHash(codeKey, user.id, given.recovery_code), Date.now());
      return false;
    },

    /** `PUT /v1/dashboard/account/password`: the current password is required once one is set. */
    async changePassword(user: UserRow, password: string, current: string | undefined): Promise<void> {
      const problem = passwordProblem(password, [...wordsOf(user), TOTP_ISSUER]);
      if (problem) throw invalid('password', problem);
      if (user.password_hash !== null) {
        if (current === undefined) throw invalid('current_password', 'is required to change a password');
        if (!(await verifyPassword(user.password_hash, current)))
          throw new AppError('forbidden', 'current_password is not the current password.');
      }
      await store.setPassword(user.id, await hashPassword(password), Date.now());
    },

    /** `posthorn admin users set-password`: no current password; the caller revokes sessions. */
    async setPassword(user: UserRow, password: string): Promise<void> {
      const problem = passwordProblem(password, [...wordsOf(user), TOTP_ISSUER]);
      if (problem) throw badRequest(`The password ${problem}.`);
      await store.setPassword(user.id, await hashPassword(password), Date.now());
    },

    /** Starts enrolment: a new secret, pending until a first code confirms it. */
    async startTotp(user: UserRow): Promise<{ secret: string; otpauth_uri: string }> {
      if (user.totp_secret_sealed !== null)
        throw conflict(
          'Two-factor authentication is already on; turn it off first to enrol a new authenticator.',
        );
      const secret = newTotpSecret();
      await store.setPendingTotp(user.id, seal(masterKey, secret, `totp:${user.id}`));
      return { secret, otpauth_uri: otpauthUri(secret, user.email, TOTP_ISSUER) };
    },

    /** Confirms enrolment with a first code; returns the recovery codes, shown this once. */
    async confirmTotp(user: UserRow, code: string): Promise<string[]> {
      if (user.totp_secret_sealed !== null) throw conflict('Two-factor authentication is already on.');
      const pending = user.totp_pending_sealed;
      if (pending === null)
        throw notFound('A pending authenticator enrolment (POST /v1/dashboard/account/totp first)');
      const step = totpStep(secretOf(user, pending), code);
      if (step === undefined)
        throw new AppError('forbidden', 'code is not the current code of the authenticator.');
      const codes = newRecoveryCodes();
      const hashes = codes.map((recovery) => codeHash(codeKey, user.id, recovery));
      if (!(await store.enableTotp(user.id, pending, step, Date.now(), hashes)))
        throw conflict('The enrolment changed meanwhile; start it again.');
      return codes;
    },

    /** Turns TOTP off after a current TOTP code or an unused recovery code. */
    async disableTotp(user: UserRow, code: string): Promise<void> {
      if (user.totp_secret_sealed === null) throw notFound('Two-factor authentication on this account');
      const ok = RECOVERY_PATTERN.test(code)
        ? await store.useRecoveryCode(user.id, codeHash(codeKey, user.id, code), Date.now())
        : await acceptTotp(user, user.totp_secret_sealed, code);
      if (!ok)
        throw new AppError(
          'forbidden',
          'code is neither the current authenticator code nor an unused recovery code.',
        );
      await store.disableTotp(user.id);
    },

    /** New recovery codes after a current TOTP code; the earlier ones stop working. */
    async regenerateRecoveryCodes(user: UserRow, code: string): Promise<string[]> {
      if (user.totp_secret_sealed === null) throw notFound('Two-factor authentication on this account');
      if (!(await acceptTotp(user, user.totp_secret_sealed, code)))
        throw new AppError('forbidden', 'code is not the current authenticator code.');
      const codes = newRecoveryCodes();
      const hashes = codes.map((recovery) => codeHash(codeKey, user.id, recovery));
      await store.replaceRecoveryCodes(user.id, hashes, Date.now());
      return codes;
    },

    /** `posthorn admin users reset-totp`: off without a code; the caller revokes sessions. */
    async resetTotp(user: UserRow): Promise<void> {
      await store.disableTotp(user.id);
    },

    /** HMAC of a login code for this user (login/service.ts). */
    loginCodeHash: (userId: string, code: string) => codeHash(codeKey, userId, code),
    store,
  };
}

export type UserService = ReturnType<typeof createUserService>;
