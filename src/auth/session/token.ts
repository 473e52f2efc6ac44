/** Session tokens: `phs_` and 40 base62 characters (~238 bits); only their SHA-256 is stored. */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LENGTH = 40;
const PATTERN = /^phs_[0-9A-Za-z]{40}$/;

export function generateSessionToken(): string {
  const chars: string[] = [];
  while (chars.length < LENGTH) {
    for (const byte of randomBytes(LENGTH * 2)) {
      // 248 = 62 * 4: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && chars.length < LENGTH) chars.push(ALPHABET[byte % 62] as string);
    }
  }
  return `phs_${chars.join('')}`;
}

export function looksLikeSessionToken(value: string): boolean {
  return PATTERN.test(value);
}
