/**
 * The tokens of status subscriptions, each good for one purpose only (its prefix says which) and
 * stored only as a SHA-256 hash:
 *
 * - a verification token (`phsv_`, 256 random bits), mailed once and cleared when used;
 * - an unsubscribe token (`phsu_`), derived from the master key, the subscription and a random
 *   nonce (HMAC-SHA256), so every notice can carry the link without the token being stored; a
 *   new nonce (after a removal and a new subscription) makes the old links unknown.
 */
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { randomToken, sha256Hex } from '../../platform/crypto.js';

export const VERIFY_PREFIX = 'phsv_';
export const UNSUBSCRIBE_PREFIX = 'phsu_';

export const newVerifyToken = (): string => `${VERIFY_PREFIX}${randomToken(32)}`;
export const newNonce = (): string => randomBytes(16).toString('base64url');
export const tokenHash = (token: string): string => sha256Hex(token);

export function unsubscribeTokens(masterKey: Buffer) {
  const key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'posthorn status unsubscribe', 32));
  return (subscriptionId: string, nonce: string): string =>
    `${UNSUBSCRIBE_PREFIX}${createHmac('sha256', key).update(`${subscriptionId}.${nonce}`).digest('base64url')}`;
}

/** A token's shape before any lookup: the right prefix and 43 base64url characters. */
export function wellFormed(token: string, prefix: string): boolean {
  return token.startsWith(prefix) && /^[A-Za-z0-9_-]{43}$/.test(token.slice(prefix.length));
}
