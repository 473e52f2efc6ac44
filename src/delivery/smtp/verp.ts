/**
 * VERP return paths (Variable Envelope Return Path): the MAIL FROM of every delivery names what
 * it carried, so that a bounce (DSN, RFC 3464) arriving later at the inbound listener maps back
 * to a message and a recipient without trusting anything the bounce says about itself.
 *
 * Format (the inbound listener parses it with `parseVerp`; this module is the one definition):
 *
 *     b+<kind><ulid>-<tag>@<bounce_subdomain>.<from domain>
 *
 * - `kind` is `r` when the transaction carried one recipient (the ULID of its `rcp_` row) and `j`
 *   when it carried several recipients of one domain (the ULID of its `job_` row; the DSN's
 *   Final-Recipient field then says which one bounced).
 * - `ulid` is the 26-character ULID after the ID's prefix, in lower case (some MTAs fold case).
 * - `tag` is 10 base32 characters of HMAC-SHA256 over `kind + ulid`, keyed by a key derived from
 *   the master key, so a forged bounce naming someone else's recipient is refused.
 *
 * The local part is 39 characters, inside RFC 5321 §4.5.3.1.1's 64.
 *
 * @example
 * verpAddress(key, { kind: 'recipient', id: 'rcp_01JD3Q8Z9V6W1R2T3Y4U5I6O7P' }, 'bounces.example.com')
 * // 'b+r01jd3q8z9v6w1r2t3y4u5i6o7p-3kq9x0m2ab@bounces.example.com'
 */
import { createHmac, createSecretKey, hash, type KeyObject, timingSafeEqual } from 'node:crypto';

export type VerpTarget =
  | { readonly kind: 'recipient'; readonly id: string }
  | { readonly kind: 'job'; readonly id: string };

const PREFIX = 'b+';
const TAG_LENGTH = 10;
const ULID = /^[0-9a-hjkmnp-tv-z]{26}$/;
const LOCAL = /^b\+([rj])([0-9a-z]{26})-([0-9a-z]{10})$/;
const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * The VERP key: derived from the master key so the master key itself never signs addresses. A
 * KeyObject, made once: an HMAC keyed with raw bytes imports them on every call (3x the cost).
 */
export function verpKey(masterKey: Buffer): KeyObject {
  return createSecretKey(createHmac('sha256', masterKey).update('posthorn verp v1').digest());
}

/** The return path for a transaction; `bounceDomain` is e.g. `bounces.example.com`. */
export function verpAddress(key: KeyObject, target: VerpTarget, bounceDomain: string): string {
  const kind = target.kind === 'recipient' ? 'r' : 'j';
  const ulid = target.id.slice(target.id.indexOf('_') + 1).toLowerCase();
  if (!ULID.test(ulid)) throw new Error(`not an ID made by newId: ${target.id}`);
  return `${PREFIX}${kind}${ulid}-${tag(key, kind, ulid)}@${bounceDomain.toLowerCase()}`;
}

/**
 * Reads a VERP address back (case-insensitively): the recipient or job it names, or null when
 * the address is not one of ours or its tag does not verify.
 *
 * @example parseVerp(key, 'B+R01JD...-3KQ9X0M2AB@bounces.example.com') // { kind: 'recipient', id: 'rcp_01JD...' }
 */
export function parseVerp(
  key: KeyObject,
  address: string,
): (VerpTarget & { readonly domain: string }) | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const match = LOCAL.exec(address.slice(0, at).toLowerCase());
  if (!match) return null;
  const [, kind, ulid, given] = match as unknown as [string, 'r' | 'j', string, string];
  const expected = Buffer.from(tag(key, kind, ulid));
  if (!timingSafeEqual(expected, Buffer.from(given))) return null;
  const id = `${kind === 'r' ? 'rcp' : 'job'}_${ulid.toUpperCase()}`;
  const domain = address.slice(at + 1).toLowerCase();
  return kind === 'r' ? { kind: 'recipient', id, domain } : { kind: 'job', id, domain };
}

/** HMAC-SHA256's block size (RFC 2104's B) and output length (L). */
const BLOCK = 64;
const DIGEST = 32;
const ULID_LENGTH = 26;

/**
 * The key's padded forms, `K ^ ipad` and `K ^ opad` (RFC 2104 §2), each followed by room for what
 * is hashed after it, made once per key.
 */
const pads = new WeakMap<KeyObject, { readonly inner: Buffer; readonly outer: Buffer }>();

function padsOf(key: KeyObject) {
  let known = pads.get(key);
  if (known === undefined) {
    const raw = key.export();
    // RFC 2104 §2: a key longer than the block is hashed first (verpKey's is 32 bytes).
    const k = raw.length > BLOCK ? hash('sha256', raw, 'buffer') : raw;
    const inner = Buffer.alloc(BLOCK + 1 + ULID_LENGTH, 0x36);
    const outer = Buffer.alloc(BLOCK + DIGEST, 0x5c);
    for (let i = 0; i < k.length; i++) {
      inner[i] = (inner[i] as number) ^ (k[i] as number);
      outer[i] = (outer[i] as number) ^ (k[i] as number);
    }
    known = { inner, outer };
    pads.set(key, known);
  }
  return known;
}

/**
 * HMAC-SHA256 (RFC 2104) of `kind + ulid` by two one-shot hashes: the same bytes as `createHmac`,
 * at a fraction of its cost on the event loop, where each `createHmac` fetches its algorithm anew.
 * The buffers are reused: the event loop makes one tag at a time.
 */
function hmac(key: KeyObject, kind: string, ulid: string): Buffer {
  // Both are ASCII, checked by their callers' patterns: one byte per character.
  if (kind.length !== 1 || ulid.length !== ULID_LENGTH)
    return createHmac('sha256', key).update(`${kind}${ulid}`).digest();
  const { inner, outer } = padsOf(key);
  inner.write(kind, BLOCK, 'latin1');
  inner.write(ulid, BLOCK + 1, 'latin1');
  hash('sha256', inner, 'buffer').copy(outer, BLOCK);
  return hash('sha256', outer, 'buffer');
}

function tag(key: KeyObject, kind: string, ulid: string): string {
  const mac = hmac(key, kind, ulid);
  // 10 characters of 5 bits: 50 bits of the MAC, ample against guessing one address.
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of mac) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < TAG_LENGTH) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === TAG_LENGTH) break;
  }
  return out;
}
