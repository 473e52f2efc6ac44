/**
 * The broadcast tests' world: the delivery tests' (a real Posthorn with its engine, a DNS server
 * and an SMTP server on loopback, acme.test verified) behind an HTTPS front, so the unsubscribe
 * links in mail are the https links a mailbox provider follows; and an audience to send to.
 */
import type { ExecutionContext } from 'ava';
import { type DeliveryEnv, type EnvOptions, mx, startDeliveryEnv } from '../delivery/env.js';
import { type HttpsFront, startHttpsFront } from '../helpers/https-front.js';

export const CONSENT = { consent_source: 'signup form', consent_at: '2026-01-02T03:04:05Z' };

export interface BroadcastEnv extends DeliveryEnv {
  readonly front: HttpsFront;
}

export async function startBroadcastEnv(
  t: ExecutionContext,
  options: EnvOptions = {},
): Promise<BroadcastEnv> {
  const front = await startHttpsFront(t);
  const config = options.config ?? {};
  const env = await startDeliveryEnv(t, {
    ...options,
    config: { ...config, server: { public_url: front.url, ...config.server } },
  });
  front.target = env.ph.url;
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  return { ...env, front };
}

/** An audience with these contacts (all subscribed with consent); returns its ID. */
export async function audienceWith(
  env: DeliveryEnv,
  contacts: readonly Record<string, unknown>[],
  name = 'Newsletter',
): Promise<string> {
  const audience = await env.ph.request('POST', '/v1/audiences', { body: { name } });
  if (audience.status !== 201) throw new Error(`audience: ${audience.status} ${audience.text}`);
  for (const contact of contacts) {
    const res = await env.ph.request('POST', `/v1/audiences/${audience.body.id}/contacts`, {
      body: { ...CONSENT, ...contact },
    });
    if (res.status !== 201) throw new Error(`contact: ${res.status} ${res.text}`);
  }
  return audience.body.id as string;
}

/** Creates and schedules (now) a broadcast; returns its ID. */
export async function sendBroadcast(env: DeliveryEnv, body: Record<string, unknown>): Promise<string> {
  const created = await env.ph.request('POST', '/v1/broadcasts', {
    body: { from: 'Acme News <news@acme.test>', subject: 'News', html: '<p>News</p>', ...body },
  });
  if (created.status !== 201) throw new Error(`broadcast: ${created.status} ${created.text}`);
  const scheduled = await env.ph.request('POST', `/v1/broadcasts/${created.body.id}/schedule`);
  if (scheduled.status !== 202) throw new Error(`schedule: ${scheduled.status} ${scheduled.text}`);
  return created.body.id as string;
}

/** The header section of a received message, unfolded, by lower-case name (first instance). */
export function headersOf(data: Buffer): Map<string, string> {
  const head = data.toString('latin1').split('\r\n\r\n')[0] ?? '';
  const out = new Map<string, string>();
  for (const field of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = field.indexOf(':');
    const name = field.slice(0, colon).toLowerCase();
    if (!out.has(name)) out.set(name, field.slice(colon + 1).trim());
  }
  return out;
}

/** Polls an async check until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
