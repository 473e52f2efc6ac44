/**
 * Tracking tests' helpers: a message sent through the API (the sandbox sender to the owner, with
 * delivery off unless a test starts it), tokens for it made with the server's own key, and reads
 * of what was recorded.
 */
import { query } from '../helpers/sql.js';
import { connect } from 'node:net';
import { clickToken, openToken, trackingTokenKey } from '../../src/tracking/token.js';
import type { Posthorn } from '../helpers/server.js';

export const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const APPLE_PROXY = 'Mozilla/5.0';

export async function sandboxSend(ph: Posthorn, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await ph.request('POST', '/v1/emails', {
    body: {
      from: 'Posthorn Sandbox <sandbox@posthorn.test>',
      to: ['owner@example.test'],
      subject: 'Hello',
      html: '<p><a href="https://acme.test/a">A</a> <a href="https://acme.test/b">B</a></p>',
      ...extra,
    },
  });
  if (res.status !== 202) throw new Error(`send: ${res.status} ${res.text}`);
  return res.body.id as string;
}

export function openUrl(ph: Posthorn, messageId: string): string {
  return `${ph.url}/v1/track/open/${openToken(trackingTokenKey(ph.server.kernel.masterKey), messageId)}`;
}

export function clickUrl(ph: Posthorn, messageId: string, url: string, index = 0, count = 1): string {
  const token = clickToken(trackingTokenKey(ph.server.kernel.masterKey), messageId, { index, count, url });
  return `${ph.url}/v1/track/click/${token}`;
}

export interface HitRow {
  kind: string;
  link_url: string | null;
  method: string;
  ip_prefix: string | null;
  agent_class: string;
  machine: number;
  machine_reason: string | null;
  proxy: string | null;
  recipient: string | null;
}

export function hits(ph: Posthorn, messageId: string): Promise<HitRow[]> {
  return query<HitRow>(
    ph.server.kernel.store,
    `select kind, link_url, method, ip_prefix, agent_class, machine, machine_reason, proxy, recipient
     from tracking_hits where message_id = ? order by id`,
    messageId,
  );
}

export interface TrackingEvent {
  type: string;
  recipient: string | null;
  data: Record<string, any>;
}

export async function trackingEvents(ph: Posthorn, messageId: string): Promise<TrackingEvent[]> {
  const rows = await query<{ type: string; recipient: string | null; data: string }>(
    ph.server.kernel.store,
    `select type, recipient, data from events
     where message_id = ? and type in ('email.opened', 'email.clicked') order by id`,
    messageId,
  );
  return rows.map((row) => ({ ...row, data: JSON.parse(row.data) }));
}

/** Polls until `check` returns (or resolves to) something other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * GETs `paths` on one connection in one write (HTTP/1.1 pipelining): the server reads them
 * back to back, as a scanner following every link of a message at once is seen, however busy the
 * host running the test is. Resolves with each response's status line once all have come.
 */
export function pipelined(baseUrl: string, paths: readonly string[], userAgent: string): Promise<string[]> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const statuses = received.match(/^HTTP\/1\.1 \d{3}[^\r\n]*/gm) ?? [];
      if (statuses.length >= paths.length) {
        socket.destroy();
        resolve(statuses);
      }
    });
    socket.once('error', reject);
    socket.write(
      paths
        .map(
          (path) => `GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUser-Agent: ${userAgent}\r\n\r\n`,
        )
        .join(''),
    );
  });
}
