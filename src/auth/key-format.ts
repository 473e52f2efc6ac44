/**
 * The shape of an API key: `ph_live_` or `ph_test_` followed by 32 base62 characters (190 bits).
 * Only the SHA-256 of the whole key is stored; the last four characters are kept as a hint.
 */
import { randomBytes } from 'node:crypto';
import type { KeyMode } from '../platform/db/tables.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;
const KEY_PATTERN = /^ph_(live|test)_[0-9A-Za-z]{32}$/;

export function generateKey(mode: KeyMode): string {
  const chars: string[] = [];
  while (chars.length < SECRET_LENGTH) {
    for (const byte of randomBytes(SECRET_LENGTH * 2)) {
      // 248 = 62 * 4: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && chars.length < SECRET_LENGTH) chars.push(ALPHABET[byte % 62] as string);
    }
  }
  return `ph_${mode}_${chars.join('')}`;
}

export function looksLikeKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

export function keyHint(key: string): string {
  return key.slice(-4);
}
