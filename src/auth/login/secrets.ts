/**
 * Short secrets a person types: six-digit login codes and recovery codes. They are stored as
 * HMAC-SHA256 under a key derived from the master key (not a bare hash: a million six-digit codes
 * are hashed in a blink, so a copy of the database must not reveal them), bound to the user, and
 * compared in constant time.
 */
import { createHmac, hkdfSync, randomInt } from 'node:crypto';
import { safeEqual } from '../../platform/crypto.js';

export function deriveCodeKey(masterKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'posthorn login codes v1', 32));
}

export function codeHash(key: Buffer, userId: string, code: string): string {
  return createHmac('sha256', key).update(`${userId}\n${code}`).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  return safeEqual(a, b);
}

/** Six digits, each equally likely. */
export function newLoginCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_PATTERN = /^[a-z2-9]{5}-[a-z2-9]{5}$/;

/** Ten codes of ten characters from a 31-letter alphabet (~50 bits each), shown as `xxxxx-xxxxx`. */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    let code = '';
    for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(0, RECOVERY_ALPHABET.length)];
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });
}
