/**
 * A Posthorn with its inbound SMTP listener on a loopback port, a real loopback DNS server as its
 * resolver (domain verification, SPF/DKIM/DMARC of received mail), the real clamd of
 * scripts/peers, and a domain verified the way an operator verifies one (records published,
 * POST /verify). Mail goes in over real SMTP with nodemailer.
 */
import type { ExecutionContext } from 'ava';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import { createDomain, publish, startDomainEnv } from '../domains/env.js';
import { requireClamd } from '../helpers/clamd.js';
import type { DnsTestServer } from '../helpers/dns-server.js';
import type { ConfigOverrides, Posthorn } from '../helpers/server.js';
import { query } from '../helpers/sql.js';

export const DOMAIN = 'acme.example';

// The public EICAR test string, assembled here so that no file in the repository holds it whole.
export const EICAR = Buffer.from(
  ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$', 'EICAR-STANDARD-ANTIVIRUS-', 'TEST-FILE!$H+H*'].join(''),
);

export interface InboundEnv {
  readonly ph: Posthorn;
  readonly dns: DnsTestServer;
  readonly smtpPort: number;
  readonly domainId: string;
  /** Sends over SMTP; resolves with the server's final reply, rejects with nodemailer's error. */
  send(message: SendMailOptions): Promise<{ response: string; accepted: unknown[]; rejected: unknown[] }>;
  /** Waits until every accepted message is processed. */
  settled(): Promise<void>;
}

export async function startInboundEnv(
  t: ExecutionContext,
  overrides: ConfigOverrides = {},
): Promise<InboundEnv> {
  const clamd = await requireClamd();
  const { ph, dns } = await startDomainEnv(t, {
    ...overrides,
    smtp_in: { enabled: true, listen: '127.0.0.1:0', ...overrides.smtp_in },
    clamav: { host: clamd.host, port: clamd.port, rescan_interval: '500ms', ...overrides.clamav },
  });
  const domain = await createDomain(ph, DOMAIN);
  publish(dns, domain);
  const verified = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  if (verified.body.status !== 'verified') throw new Error(`domain not verified: ${verified.text}`);
  const smtpPort = (await ph.server.services.inbound.ready()).port;
  return {
    ph,
    dns,
    smtpPort,
    domainId: domain.id,
    send: (message) => sendSmtp(smtpPort, message),
    settled: () => ph.server.services.inbound.settled(),
  };
}

export async function sendSmtp(port: number, message: SendMailOptions) {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    name: 'client.example',
    tls: { rejectUnauthorized: false },
  });
  try {
    return await transport.sendMail(message);
  } finally {
    transport.close();
  }
}

export async function createRoute(
  ph: Posthorn,
  domainId: string,
  localPart?: string,
): Promise<{ id: string; address: string }> {
  const res = await ph.request('POST', '/v1/inbound/routes', {
    body: { domain_id: domainId, ...(localPart === undefined ? {} : { local_part: localPart }) },
  });
  if (res.status !== 201) throw new Error(`creating a route: ${res.status} ${res.text}`);
  return res.body;
}

/** Polls until `check` returns a value (not undefined), or fails after `ms`. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function eventRows(
  ph: Posthorn,
  type: string,
): Promise<
  Array<{
    project_id: string;
    message_id: string | null;
    recipient: string | null;
    data: Record<string, unknown>;
  }>
> {
  const rows = await query<{
    project_id: string;
    message_id: string | null;
    recipient: string | null;
    data: string;
  }>(
    ph.server.kernel.store,
    'select project_id, message_id, recipient, data from events where type = ? order by id',
    type,
  );
  return rows.map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }));
}
