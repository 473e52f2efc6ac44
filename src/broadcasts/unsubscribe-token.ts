/**
 * Unsubscribe tokens: what a broadcast message's `List-Unsubscribe` URL, its `mailto:` address
 * and its visible link carry, so that the one person it was sent to (and nobody else) can leave
 * the audience without signing in. A token names the broadcast message (`msg_`), which the
 * broadcast's ledger maps to its contact and broadcast; a tag of HMAC-SHA256 over it, keyed by a
 * key derived from the master key, makes a token for anyone else's message unguessable.
 *
 *     m<ulid>-<tag>      e.g. m01jd3q8z9v6w1r2t3y4u5i6o7p-3kq9x0m2ab
 *
 * Lower-case base32 only, so it survives mail systems that fold the case of a local part: the
 * mailto address is `u+<token>@<bounce_subdomain>.<from domain>` (41 characters before the @,
 * inside RFC 5321 §4.5.3.1.1's 64).
 */
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

const ULID = /^[0-9a-hjkmnp-tv-z]{26}$/;
const TOKEN = /^m([0-9a-z]{26})-([0-9a-z]{10})$/;
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';
const TAG_LENGTH = 10;
/** The local part's prefix of the unsubscribe address (VERP bounce addresses use `b+`). */
export const MAILTO_PREFIX = 'u+';

export function unsubscribeKey(masterKey: Buffer): KeyObject {
  return createSecretKey(createHmac('sha256', masterKey).update('posthorn unsubscribe v1').digest());
}

function tag(key: KeyObject, ulid: string): string {
  const mac = createHmac('sha256', key).update(`m${ulid}`).digest();
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of mac) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < TAG_LENGTH) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === TAG_LENGTH) break;
  }
  return out;
}

/** @example unsubscribeToken(key, 'msg_01JD3Q8Z9V6W1R2T3Y4U5I6O7P') // 'm01jd3q8z9v6w1r2t3y4u5i6o7p-...' */
export function unsubscribeToken(key: KeyObject, messageId: string): string {
  const ulid = messageId.slice(messageId.indexOf('_') + 1).toLowerCase();
  if (!ULID.test(ulid)) throw new Error(`not a message ID made by newId: ${messageId}`);
  return `m${ulid}-${tag(key, ulid)}`;
}

/** The message a token names, or undefined when it is not a token of ours (altered, or forged). */
export function messageOfToken(key: KeyObject, token: string): string | undefined {
  const match = TOKEN.exec(token.trim().toLowerCase());
  if (!match) return undefined;
  const [, ulid, given] = match as unknown as [string, string, string];
  if (!ULID.test(ulid)) return undefined;
  if (!timingSafeEqual(Buffer.from(tag(key, ulid)), Buffer.from(given))) return undefined;
  return `msg_${ulid.toUpperCase()}`;
}

/** The token in an unsubscribe address (`u+<token>@...`), or undefined when it is not one. */
export function tokenOfAddress(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = address.slice(0, at).toLowerCase();
  return local.startsWith(MAILTO_PREFIX) ? local.slice(MAILTO_PREFIX.length) : undefined;
}
