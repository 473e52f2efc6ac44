/**
 * Shared pieces of the tests of mail about sent mail: a message sent through the API and marked
 * delivered, its VERP return paths, DSN and ARF reports about it as receivers write them, and
 * their DKIM signatures (a key published on the test DNS server).
 */
import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { verpAddress, verpKey } from '../../src/delivery/smtp/verp.js';
import { query } from '../helpers/sql.js';
import { DOMAIN, type InboundEnv } from './env.js';

export const FBL = 'fbl@feedback.example';

export interface Sent {
  readonly id: string;
  readonly jobId: string;
  readonly recipients: Record<string, string>;
}

/** Sends through the API, then marks the recipients delivered, as the delivery engine would have. */
export async function sendAndDeliver(env: InboundEnv, to: string[]): Promise<Sent> {
  const res = await env.ph.request('POST', '/v1/emails', {
    body: { from: `Acme <hello@${DOMAIN}>`, to, subject: 'Your receipt', text: 'Thanks for your order.' },
  });
  if (res.status !== 202) throw new Error(`send: ${res.status} ${res.text}`);
  const store = env.ph.server.kernel.store;
  await query(
    store,
    "update message_recipients set status = 'delivered', attempts = 1 where message_id = ?",
    res.body.id,
  );
  await query(store, "update messages set status = 'delivered' where id = ?", res.body.id);
  await query(store, "update delivery_jobs set state = 'done' where message_id = ?", res.body.id);
  const rows = await query<{ id: string; email: string }>(
    store,
    'select id, email from message_recipients where message_id = ?',
    res.body.id,
  );
  const [job] = await query<{ id: string }>(
    store,
    'select id from delivery_jobs where message_id = ?',
    res.body.id,
  );
  if (!job) throw new Error(`no delivery job for ${res.body.id}`);
  return { id: res.body.id, jobId: job.id, recipients: Object.fromEntries(rows.map((r) => [r.email, r.id])) };
}

export function verp(env: InboundEnv, target: { kind: 'recipient' | 'job'; id: string }): string {
  return verpAddress(verpKey(env.ph.server.kernel.masterKey), target, `bounces.${DOMAIN}`);
}

export async function recipientRow(env: InboundEnv, id: string) {
  const [row] = await query<{ status: string; smtp_code: number | null; bounce_category: string | null }>(
    env.ph.server.kernel.store,
    'select status, smtp_code, bounce_category from message_recipients where id = ?',
    id,
  );
  if (!row) throw new Error(`no recipient ${id}`);
  return row;
}

export async function messageStatus(env: InboundEnv, id: string): Promise<string> {
  const [row] = await query<{ status: string }>(
    env.ph.server.kernel.store,
    'select status from messages where id = ?',
    id,
  );
  if (!row) throw new Error(`no message ${id}`);
  return row.status;
}

export const dsn = (
  to: string,
  sent: Sent,
  blocks: string[],
) => `From: Mail Delivery System <MAILER-DAEMON@mx.example.net>
To: ${to}
Subject: Undelivered Mail Returned to Sender
Date: Mon, 23 Nov 2026 10:00:00 +0000
Message-ID: <dsn-1@mx.example.net>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
 boundary="BOUNDARY"

--BOUNDARY
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.net. I'm sorry to have to inform you
that your message could not be delivered to one or more recipients.

--BOUNDARY
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net
Arrival-Date: Mon, 23 Nov 2026 09:59:58 +0000

${blocks.join('\n\n')}

--BOUNDARY
Content-Type: text/rfc822-headers

Message-ID: <${sent.id}@${DOMAIN}>
From: Acme <hello@${DOMAIN}>
Subject: Your receipt

--BOUNDARY--
`;

export const arf = (options: {
  originalMailFrom?: string;
  rcptTo?: string;
  headers: string;
  headersType?: string;
}) => `From: Feedback Loop <feedback@isp.example>
To: ${FBL}
Subject: Complaint about message from 192.0.2.10
Date: Mon, 23 Nov 2026 11:00:00 +0000
Message-ID: <arf-1@isp.example>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report;
    boundary="part1_13d.2e68ed54_boundary"

--part1_13d.2e68ed54_boundary
Content-Type: text/plain; charset="US-ASCII"
Content-Transfer-Encoding: 7bit

This is an email abuse report for an email message received from IP
192.0.2.10 on Mon, 23 Nov 2026 10:00:00 +0000.

--part1_13d.2e68ed54_boundary
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: ISP-FBL/1.0
Version: 1
${options.originalMailFrom ? `Original-Mail-From: <${options.originalMailFrom}>\n` : ''}${options.rcptTo ? `Original-Rcpt-To: <${options.rcptTo}>\n` : ''}Arrival-Date: Mon, 23 Nov 2026 10:00:00 +0000
Source-IP: 192.0.2.10
Reported-Domain: ${DOMAIN}

--part1_13d.2e68ed54_boundary
Content-Type: ${options.headersType ?? 'message/rfc822'}
Content-Disposition: inline

${options.headers}
--part1_13d.2e68ed54_boundary--
`;

/**
 * The report with a DKIM-Signature of `domain` (selector `fbl`) in front, its public key published
 * on the test DNS server, as a mailbox provider signs its DSNs and feedback-loop reports.
 */
export async function signedBy(env: InboundEnv, domain: string, message: string): Promise<string> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  env.dns.set(`fbl._domainkey.${domain}`, 'TXT', [`v=DKIM1; k=rsa; p=${p}`]);
  const raw = message.replace(/\r?\n/g, '\r\n');
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const options = { signatureData: [{ signingDomain: domain, selector: 'fbl', privateKey: key }] };
  // mailauth's types want the one-signature shape; signatureData is what it documents and reads.
  const signed = await dkimSign(raw, options as unknown as Parameters<typeof dkimSign>[1]);
  if (signed.errors.length > 0) throw new Error(`signing as ${domain}: ${JSON.stringify(signed.errors)}`);
  return `${signed.signatures}${raw}`;
}
