/**
 * The bearer secrets of OAuth: access tokens `pho_` and refresh tokens `phr_` (40 base62
 * characters, ~238 bits), client secrets `phcs_`, and opaque authorization codes (256 bits,
 * base64url). Only their SHA-256 is ever stored; comparisons of hashes are constant-time.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../../platform/crypto.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LENGTH = 40;

function base62(length: number): string {
  const chars: string[] = [];
  while (chars.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 62 * 4: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && chars.length < length) chars.push(ALPHABET[byte % 62] as string);
    }
  }
  return chars.join('');
}

export type SecretKind = 'pho' | 'phr' | 'phcs';

/** @example newSecret('pho') // 'pho_3kTq...' (44 characters) */
export function newSecret(kind: SecretKind): string {
  return `${kind}_${base62(LENGTH)}`;
}

const shapes: Record<SecretKind, RegExp> = {
  pho: /^pho_[0-9A-Za-z]{40}$/,
  phr: /^phr_[0-9A-Za-z]{40}$/,
  phcs: /^phcs_[0-9A-Za-z]{40}$/,
};

export function looksLike(kind: SecretKind, value: string): boolean {
  return shapes[kind].test(value);
}

/** An authorization code: opaque to the client, single-use, short-lived. */
export function newCode(): string {
  return randomBytes(32).toString('base64url');
}

export const hashSecret = sha256Hex;

/** Whether `given` hashes to `storedHash` (hex), in constant time. */
export function secretMatches(given: string, storedHash: string): boolean {
  const a = Buffer.from(sha256Hex(given), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
