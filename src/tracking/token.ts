/**
 * Tracking tokens: what a pixel or a tracked link carries so that its hit can be recorded and a
 * click sent on to the original URL without any lookup. A token is the base64url of a payload and
 * the first 16 bytes of its HMAC-SHA256 under the tracking key (RFC 2104; 128 bits, as NIST SP
 * 800-107 §5.3.4 allows for a truncated MAC), so a token altered, truncated or made with another
 * key is refused before anything is read from it: the click endpoint redirects only to URLs this
 * server wrote, and is no open redirect.
 *
 * Payload: a version byte, `o` or `c`, the 26 characters of the message ID's ULID, and for a click
 * the link's index and the message's count of tracked links (uint16 each, big-endian) followed by
 * the URL in UTF-8. Pure (node:crypto only): the render workers make tokens while composing.
 */
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

export interface OpenToken {
  readonly kind: 'open';
  readonly messageId: string;
}

export interface ClickToken {
  readonly kind: 'click';
  readonly messageId: string;
  /** The link's place among the message's tracked links, from 0. */
  readonly index: number;
  /** How many links of the message are tracked. */
  readonly count: number;
  readonly url: string;
}

export type TrackingToken = OpenToken | ClickToken;

const VERSION = 1;
const OPEN = 0x6f;
const CLICK = 0x63;
const MAC_BYTES = 16;
const ULID_LENGTH = 26;
const HEAD = 2 + ULID_LENGTH;
const MESSAGE_ID = /^msg_([0-9A-Z]{26})$/;
/** Links longer than this stay as they are (a tracked URL would pass what mail clients keep). */
export const MAX_TRACKED_URL_BYTES = 4096;
/** At most this many links of a message are tracked (the index is a uint16). */
export const MAX_TRACKED_LINKS = 65_535;

/**
 * The key tokens are signed with, derived from the master key so that it never leaves the process
 * as itself and no other use of the master key can produce a valid token.
 */
export function trackingTokenKey(masterKey: Buffer): Buffer {
  return createHmac('sha256', masterKey).update('posthorn tracking token key v1').digest();
}

/**
 * Each key as a KeyObject, made once: `createHmac` given raw bytes makes one per call, 35 µs
 * against 5 µs for the HMAC itself (it was 14% of the server's time in `scripts/bench tracking`).
 */
const keyObjects = new WeakMap<Uint8Array, KeyObject>();

function mac(key: Uint8Array, payload: Buffer): Buffer {
  let keyObject = keyObjects.get(key);
  if (keyObject === undefined) {
    keyObject = createSecretKey(key);
    keyObjects.set(key, keyObject);
  }
  return createHmac('sha256', keyObject).update(payload).digest().subarray(0, MAC_BYTES);
}

function head(kind: number, messageId: string, extra: number): Buffer {
  const ulid = MESSAGE_ID.exec(messageId)?.[1];
  if (ulid === undefined) throw new Error(`not a message ID: ${messageId}`);
  const payload = Buffer.allocUnsafe(HEAD + extra);
  payload[0] = VERSION;
  payload[1] = kind;
  payload.write(ulid, 2, 'latin1');
  return payload;
}

function sealed(key: Uint8Array, payload: Buffer): string {
  return Buffer.concat([payload, mac(key, payload)]).toString('base64url');
}

/** @example openToken(key, 'msg_01JD3Q8Z9V6W1R2T3Y4U5X6Y7Z') // 'AW8wMUpEM1E4...' */
export function openToken(key: Uint8Array, messageId: string): string {
  return sealed(key, head(OPEN, messageId, 0));
}

/** The token of one tracked link; `url` is the link as the recipient would have followed it. */
export function clickToken(
  key: Uint8Array,
  messageId: string,
  link: { readonly index: number; readonly count: number; readonly url: string },
): string {
  const url = Buffer.from(link.url, 'utf8');
  const payload = head(CLICK, messageId, 4 + url.length);
  payload.writeUInt16BE(link.index, HEAD);
  payload.writeUInt16BE(link.count, HEAD + 2);
  url.copy(payload, HEAD + 4);
  return sealed(key, payload);
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The token's contents, or undefined when it is not one this key made (or is not of `kind`). */
export function readToken(
  key: Uint8Array,
  token: string,
  kind: TrackingToken['kind'],
): TrackingToken | undefined {
  if (token.length < 8 || token.length > 8192 || !BASE64URL.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  // A last character whose unused bits differ decodes to the same bytes: only the canonical form is ours.
  if (bytes.length < HEAD + MAC_BYTES || bytes.toString('base64url') !== token) return undefined;
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  if (!timingSafeEqual(mac(key, payload), bytes.subarray(bytes.length - MAC_BYTES))) return undefined;
  // Past the MAC the payload is ours; the checks below only refuse a token of another version or kind.
  if (payload[0] !== VERSION) return undefined;
  const messageId = `msg_${payload.toString('latin1', 2, HEAD)}`;
  if (kind === 'open')
    return payload[1] === OPEN && payload.length === HEAD ? { kind, messageId } : undefined;
  if (payload[1] !== CLICK || payload.length < HEAD + 4) return undefined;
  return {
    kind,
    messageId,
    index: payload.readUInt16BE(HEAD),
    count: payload.readUInt16BE(HEAD + 2),
    url: payload.toString('utf8', HEAD + 4),
  };
}
