/**
 * The delivery tests' world: a real Posthorn (delivery engine on), a real DNS server on loopback as
 * its resolver, and a real SMTP server on loopback as every recipient's MX. A sending domain is set
 * up the way an operator does it: created through the API, its records published, verified.
 */
import type { ExecutionContext } from 'ava';
import { type DnsTestServer, startDnsServer } from '../helpers/dns-server.js';
import { type ConfigOverrides, type Posthorn, startPosthorn } from '../helpers/server.js';
import { type SmtpPeer, type SmtpPeerOptions, startSmtpPeer } from '../helpers/smtp-peer.js';
import { querySync } from '../helpers/sql.js';

export const EHLO_NAME = 'mta.posthorn.test';
export const FROM = 'Acme <hello@acme.test>';

export interface DeliveryEnv {
  readonly ph: Posthorn;
  readonly dns: DnsTestServer;
  readonly peer: SmtpPeer;
}

export interface EnvOptions {
  readonly peer?: SmtpPeerOptions;
  readonly config?: ConfigOverrides;
  /** Set up acme.test as a verified sending domain (default true). */
  readonly domain?: boolean;
}

export async function startDeliveryEnv(t: ExecutionContext, options: EnvOptions = {}): Promise<DeliveryEnv> {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const peer = await startSmtpPeer(options.peer);
  t.teardown(() => peer.close());
  const overrides = options.config ?? {};
  const ph = await startPosthorn(t, {
    ...overrides,
    dns: { servers: [dns.address], timeout_ms: 1000, ...overrides.dns },
    delivery: {
      enabled: true,
      hostname: EHLO_NAME,
      port: peer.port,
      sending_ips: ['192.0.2.25'],
      retry_schedule: ['1s'],
      poll_interval: '200ms',
      connect_timeout: '3s',
      ...overrides.delivery,
    },
  });
  const env = { ph, dns, peer };
  if (options.domain !== false) await sendingDomain(env, 'acme.test');
  return env;
}

/** Creates, publishes and verifies a sending domain through the API. */
export async function sendingDomain(env: DeliveryEnv, name: string): Promise<void> {
  const created = await env.ph.request('POST', '/v1/domains', { body: { name } });
  if (created.status !== 201) throw new Error(`creating ${name}: ${created.status} ${created.text}`);
  for (const record of created.body.records as {
    type: string;
    host: string;
    value: string;
    value_strings?: string[];
  }[]) {
    if (record.type === 'TXT') env.dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
  }
  env.dns.set(EHLO_NAME, 'A', ['127.0.0.1']);
  const verified = await env.ph.request('POST', `/v1/domains/${created.body.id}/verify`);
  if (verified.body.status !== 'verified') throw new Error(`verifying ${name}: ${verified.text}`);
}

/** Publishes MX records for `domain`, each host with an A record. */
export function mx(
  dns: DnsTestServer,
  domain: string,
  hosts: readonly { host: string; ip: string; preference?: number }[],
) {
  dns.set(
    domain,
    'MX',
    hosts.map((h, i) => ({ preference: h.preference ?? (i + 1) * 10, exchange: h.host })),
  );
  for (const h of hosts) dns.set(h.host, 'A', [h.ip]);
}

/** POST /v1/emails; returns the message ID (fails the test on anything but 202). */
export async function send(env: DeliveryEnv, body: Record<string, unknown>, key?: string): Promise<string> {
  const res = await env.ph.request('POST', '/v1/emails', {
    body: { from: FROM, subject: 'Hello', html: '<p>Hello <b>there</b></p>', text: 'Hello there', ...body },
    ...(key ? { key } : {}),
  });
  if (res.status !== 202) throw new Error(`send: ${res.status} ${res.text}`);
  return res.body.id as string;
}

/** Rows of the server's store, on either engine (synchronously: helpers/sql.ts `querySync`). */
export function rows<T = Record<string, unknown>>(ph: Posthorn, sql: string, ...params: unknown[]): T[] {
  const { kernel } = ph.server;
  return querySync<T>(kernel.store, kernel.config.storage.url, sql, params);
}

export interface EventRow {
  type: string;
  recipient: string | null;
  data: Record<string, any>;
}

export function events(ph: Posthorn, messageId: string): EventRow[] {
  return rows<{ type: string; recipient: string | null; data: string }>(
    ph,
    'select type, recipient, data from events where message_id = ? order by id',
    messageId,
  ).map((row) => ({ ...row, data: JSON.parse(row.data) }));
}

export function messageStatus(ph: Posthorn, messageId: string): string {
  return (
    rows<{ status: string }>(ph, 'select status from messages where id = ?', messageId)[0]?.status ??
    'missing'
  );
}

export function recipientStatuses(ph: Posthorn, messageId: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of rows<{ email: string; status: string }>(
    ph,
    'select email, status from message_recipients where message_id = ?',
    messageId,
  )) {
    out[r.email] = r.status;
  }
  return out;
}

/**
 * Polls until `check` returns (or resolves to) a value other than undefined/false, or fails after
 * `timeoutMs`.
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 8000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until every recipient of the message has a final status. */
export function settled(ph: Posthorn, messageId: string, timeoutMs?: number): Promise<string> {
  return eventually(
    `message ${messageId} to settle`,
    () => {
      const status = messageStatus(ph, messageId);
      return ['delivered', 'partially_delivered', 'bounced', 'failed'].includes(status) ? status : undefined;
    },
    timeoutMs,
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
