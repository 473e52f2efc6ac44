/**
 * The broadcast benchmark's data directory: a verified DKIM domain, an audience of N contacts
 * imported through the real import API (JSON lines), and a broadcast draft of about `kb` KB,
 * prepared by the server in this process; then the config of a real `posthorn serve` with both
 * traffic classes' default lanes as the delivery benchmark sets its one (16 connections, no rate
 * cap), and the probes an application would see: one transactional send timed from the request
 * to the MX.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { validateConfig } from '../../src/platform/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import type { DnsTestServer } from '../../test/helpers/dns-server.js';
import { htmlBody, RECIPIENT_DOMAIN, SENDER_DOMAIN, verifiedTenant } from '../delivery/posthorn.js';
import type { Sink } from '../delivery/sink.js';
import { freePort } from '../lib.js';

/** Transactional mail of the benchmark goes to this domain, whose MX is a second sink. */
export const TX_DOMAIN = 'tx.bench';

export interface PreparedBroadcast {
  readonly configFile: string;
  readonly port: number;
  readonly apiKey: string;
  readonly broadcastId: string;
  /** Seconds the import of the contacts took through the API. */
  readonly importSeconds: number;
}

function configToml(dataDir: string, port: number, dns: DnsTestServer, sinkPort: number, enabled: boolean) {
  const lane = (traffic: string) =>
    `[[delivery.lanes]]\nname = "default"\ntraffic = "${traffic}"\nmax_connections = 16\nconnections_per_mx = 16\nmessages_per_connection = 1000\nrate_per_second = 1000000\n`;
  return `# written by scripts/bench broadcast
[server]
listen = "127.0.0.1:${port}"
public_url = "https://mail.${SENDER_DOMAIN}"
[storage]
data_dir = ${JSON.stringify(dataDir)}
[smtp_in]
enabled = false
[dns]
servers = [${JSON.stringify(dns.address)}]
[log]
level = "warn"
access_log = false
[limits]
sends_per_minute_per_key = 0
sends_per_hour_per_recipient = 0
[delivery]
enabled = ${enabled}
hostname = "mta.posthorn.bench"
port = ${sinkPort}
sending_ips = ["192.0.2.25"]
${lane('transactional')}${lane('marketing')}`;
}

export async function prepareBroadcast(
  dir: string,
  dns: DnsTestServer,
  sinkPort: number,
  contacts: number,
  kb: number,
): Promise<PreparedBroadcast> {
  const dataDir = path.join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const configFile = path.join(dir, 'posthorn.toml');
  writeFileSync(configFile, configToml(dataDir, port, dns, sinkPort, true));
  const { parse } = await import('smol-toml');
  const config = validateConfig(parse(configToml(dataDir, port, dns, sinkPort, false)), 'bench');
  const server = await startServer(
    { ...config, server: { ...config.server, listen: '127.0.0.1:0' } },
    createLogger('warn'),
  );
  try {
    const { apiKey, call } = await verifiedTenant(server, dns);
    const audience = await call('POST', '/v1/audiences', { name: 'Bench' });
    const lines: string[] = [];
    for (let i = 0; i < contacts; i++) {
      lines.push(
        `{"email":"c${i}@${RECIPIENT_DOMAIN}","first_name":"Reader ${i}","consent_source":"bench","consent_at":"2026-01-01T00:00:00Z"}`,
      );
    }
    const started = performance.now();
    const imported = await call(
      'POST',
      `/v1/audiences/${audience.id}/contacts/import`,
      lines.join('\n'),
      'application/x-ndjson',
    );
    const importSeconds = (performance.now() - started) / 1000;
    if (imported.created !== contacts) throw new Error(`import: ${JSON.stringify(imported).slice(0, 300)}`);
    const html = htmlBody(kb).replace(
      '<body style="font-family:sans-serif">',
      '<body style="font-family:sans-serif"><p>Hi {{first_name}},</p>',
    );
    const broadcast = await call('POST', '/v1/broadcasts', {
      audience_id: audience.id,
      name: 'Bench',
      from: `Acme <news@${SENDER_DOMAIN}>`,
      subject: 'News for {{first_name}}',
      html,
    });
    return { configFile, port, apiKey, broadcastId: broadcast.id, importSeconds };
  } finally {
    await server.stop();
  }
}

/** One transactional send's times (ms): to its 202, and to the second sink's count (API to MX). */
export interface TransactionalTimes {
  readonly apiMs: number;
  readonly mxMs: number;
}

/** One transactional send to the second sink, timed from the request to its 202 and to that sink. */
export async function transactional(
  prepared: PreparedBroadcast,
  txSink: Sink,
  local: string,
): Promise<TransactionalTimes> {
  const base = txSink.count;
  const start = performance.now();
  const res = await fetch(`http://127.0.0.1:${prepared.port}/v1/emails`, {
    method: 'POST',
    headers: { authorization: `Bearer ${prepared.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      from: `Acme <hello@${SENDER_DOMAIN}>`,
      to: [`${local}@${TX_DOMAIN}`],
      subject: 'Your code',
      html: htmlBody(10),
    }),
  });
  await res.text();
  const apiMs = performance.now() - start;
  if (res.status !== 202) throw new Error(`transactional send: ${res.status}`);
  return { apiMs, mxMs: (await txSink.waitFor(base + 1, 60_000)) - start };
}
