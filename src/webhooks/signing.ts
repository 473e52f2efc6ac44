/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, DESIGN.md §4): a `whsec_` secret
 * is base64 key material; the signature is `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`.
 * During a rotation several secrets sign and their signatures are space separated, which the
 * specification allows so receivers can switch secrets without dropping a delivery.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: 24 random bytes, as the reference implementations issue them. */
export function newSigningSecret(): string {
  return `${PREFIX}${randomBytes(24).toString('base64')}`;
}

/**
 * @example sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
 * // 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
 */
export function sign(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key)
    .update(`${webhookId}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header value: one signature per live secret, space separated. */
export function signatureHeader(
  secrets: readonly string[],
  webhookId: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets.map((secret) => sign(secret, webhookId, timestampSeconds, body)).join(' ');
}
