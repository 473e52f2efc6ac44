/**
 * TOTP (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps) through the `otpauth` package. A code is
 * accepted for the current step and one step either side (clock drift), and only for a step later
 * than the last one accepted for the user, so a code seen once cannot be replayed.
 */
import * as OTPAuth from 'otpauth';

const PERIOD = 30;
const WINDOW = 1;

export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

export function otpauthUri(secret: string, email: string, issuer: string): string {
  return new OTPAuth.TOTP({
    issuer,
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret,
  }).toString();
}

/**
 * The step `code` is valid for (within ±1 step of `now`), or undefined. The caller then claims the
 * step (users/store.ts `claimTotpStep`), which refuses a step already used.
 */
export function totpStep(secret: string, code: string, now = Date.now()): number | undefined {
  const totp = new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: PERIOD, secret });
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / PERIOD) + delta;
}
