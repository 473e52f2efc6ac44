/**
 * DATA goes to the spool file as it arrives: concurrent messages of several MB arrive whole while
 * the listener holds a few chunks of each in memory; a client gone mid-DATA or a message over the
 * limit leaves nothing in the spool, and one of exactly the limit is taken; dot-stuffing is undone
 * wherever the client's writes split the lines; a temporary file a crash left behind is removed at
 * start and never processed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { stoppedSetup } from '../stopped-setup.js';
import { openSpool } from '../../../src/inbound/listener/spool.js';
import { newId } from '../../../src/platform/ids.js';
import { createLogger } from '../../../src/platform/log.js';
import { startServer } from '../../../src/server.js';
import { testConfig } from '../../helpers/server.js';
import { createRoute, DOMAIN, eventually, startInboundEnv } from '../env.js';
import { openSmtp, type RawSmtp, sendRaw } from '../smtp-client.js';
import { query } from '../../helpers/sql.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A text body of about `bytes`: lines of random hex, so no two messages are alike. */
function body(bytes: number): string {
  const lines: string[] = [];
  for (let size = 0; size < bytes; size += 78) lines.push(randomBytes(38).toString('hex'));
  return lines.join('\n');
}

const spoolFiles = (dataDir: string) => readdirSync(join(dataDir, 'inbound', 'spool'));

/** MAIL FROM, RCPT TO the routed support@ address and DATA, each answered as it should be. */
async function beginData(t: ExecutionContext, smtp: RawSmtp): Promise<void> {
  t.is((await smtp.command('MAIL FROM:<ann@sender.example>')).code, 250);
  t.is((await smtp.command(`RCPT TO:<support@${DOMAIN}>`)).code, 250);
  t.is((await smtp.command('DATA')).code, 354);
}

test('concurrent messages of several MB arrive whole while the listener holds only a few chunks of each', async (t) => {
  t.timeout(120_000);
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  const { inbound } = env.ph.server.services;
  const count = 6;
  const size = 3 * 1024 * 1024;
  const texts = Array.from({ length: count }, () => body(size));

  let peak = { messages: 0, bytes: 0 };
  const sampler = setInterval(() => {
    const now = inbound.receiving();
    if (now.bytes > peak.bytes || now.messages > peak.messages)
      peak = { messages: Math.max(peak.messages, now.messages), bytes: Math.max(peak.bytes, now.bytes) };
  }, 2);
  t.teardown(() => clearInterval(sampler));
  const replies = await Promise.all(
    texts.map((text, n) =>
      sendRaw(
        env.smtpPort,
        'ann@sender.example',
        [`support@${DOMAIN}`],
        `From: ann@sender.example\nTo: support@${DOMAIN}\nSubject: Large ${n}\n\n${text}\n`,
      ),
    ),
  );
  clearInterval(sampler);
  t.deepEqual(
    replies.map((reply) => reply.code),
    texts.map(() => 250),
  );
  t.log(`peak while receiving: ${JSON.stringify(peak)} of ${count} x ${size} bytes`);
  t.true(peak.messages >= 1, 'the sampler saw messages in DATA');
  // A few chunks each (64 KB gathered per write, 128 KB kept for a small message's hand-off):
  // well under a sixth of what the messages add up to.
  t.true(peak.bytes <= count * 512 * 1024, `held ${peak.bytes} bytes at most`);
  t.is(inbound.receiving().bytes, 0);

  await env.settled();
  const list = await env.ph.request('GET', '/v1/inbound/emails?limit=10');
  t.is(list.body.data.length, count);
  for (const summary of list.body.data as Array<{ id: string; subject: string }>) {
    const n = Number(summary.subject.replace('Large ', ''));
    const email = await env.ph.request('GET', `/v1/inbound/emails/${summary.id}`);
    const text = String(email.body.text).replace(/\r\n/g, '\n').trimEnd();
    t.is(sha256(text), sha256(texts[n] as string), `message ${n} arrived byte for byte`);
  }
  t.deepEqual(spoolFiles(env.ph.dataDir), []);
});

test('a client gone in the middle of DATA leaves no file in the spool and nothing is stored', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  await beginData(t, smtp);
  await smtp.write(`Subject: Cut short\r\n\r\n${body(1024 * 1024).replace(/\n/g, '\r\n')}\r\n`);
  // The temporary file is there while the message arrives ...
  await eventually(() =>
    spoolFiles(env.ph.dataDir).some((name) => name.endsWith('.tmp')) ? true : undefined,
  );
  smtp.end();
  // ... and gone once the client is.
  await eventually(() => (spoolFiles(env.ph.dataDir).length === 0 ? true : undefined));
  await eventually(() => (env.ph.server.services.inbound.receiving().messages === 0 ? true : undefined));
  await env.settled();
  t.is((await env.ph.request('GET', '/v1/inbound/emails')).body.data.length, 0);
});

test('a server stopping while a message arrives leaves no temporary file and no open file in the spool', async (t) => {
  const env = await startInboundEnv(t, { server: { shutdown_timeout: '300ms' } });
  await createRoute(env.ph, env.domainId, 'support');
  // A client still sending when the grace period ends, that keeps its side open after the 421.
  const smtp = await openSmtp(env.smtpPort, { halfOpen: true });
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  await beginData(t, smtp);
  await smtp.write(`Subject: Never finished\r\n\r\n${body(256 * 1024).replace(/\n/g, '\r\n')}\r\n`);
  await eventually(() =>
    spoolFiles(env.ph.dataDir).some((name) => name.endsWith('.tmp')) ? true : undefined,
  );

  await env.ph.server.stop();
  t.deepEqual(spoolFiles(env.ph.dataDir), []);
  const spoolDir = join(env.ph.dataDir, 'inbound', 'spool');
  const open = readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(join('/proc/self/fd', fd)).startsWith(spoolDir);
    } catch {
      return false; // closed while listed
    }
  });
  t.deepEqual(open, [], 'no file in the spool is open');
  t.is(env.ph.server.services.inbound.receiving().messages, 0);
});

test('a message over max_message_bytes is refused with 552 after DATA and leaves no file; the next one is taken', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { max_message_bytes: 1_000_000 } });
  await createRoute(env.ph, env.domainId, 'support');
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  const transaction = async (subject: string, text: string) => {
    await beginData(t, smtp);
    return smtp.data(`Subject: ${subject}\r\n\r\n${text.replace(/\n/g, '\r\n')}\r\n.\r\n`);
  };
  const refused = await transaction('Too big', body(3 * 1024 * 1024));
  t.regex(refused.text, /^552 5\.3\.4/);
  t.deepEqual(spoolFiles(env.ph.dataDir), []);
  const taken = await transaction('Small', 'Hello.');
  t.is(taken.code, 250);
  await env.settled();
  const list = await env.ph.request('GET', '/v1/inbound/emails');
  t.deepEqual(
    list.body.data.map((email: { subject: string }) => email.subject),
    ['Small'],
  );
});

test('a message of exactly max_message_bytes is taken whole; one byte more is refused with 552', async (t) => {
  const limit = 200_000;
  const env = await startInboundEnv(t, { smtp_in: { max_message_bytes: limit } });
  await createRoute(env.ph, env.domainId, 'support');
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  // A message of `size` bytes as SIZE counts them (RFC 1870): CRLFs included, the final dot not.
  const messageOf = (subject: string, size: number) => {
    const head = `Subject: ${subject}\r\n\r\n`;
    const lines = body(size).replace(/\n/g, '\r\n');
    return `${head}${lines.slice(0, size - head.length - 2)}\r\n`;
  };
  const transaction = async (message: string) => {
    await beginData(t, smtp);
    return smtp.data(`${message}.\r\n`);
  };
  const over = messageOf('One byte over', limit + 1);
  t.is(Buffer.byteLength(over), limit + 1);
  t.regex((await transaction(over)).text, /^552 5\.3\.4/);
  const exact = messageOf('Exactly', limit);
  t.is(Buffer.byteLength(exact), limit);
  t.is((await transaction(exact)).code, 250);
  await env.settled();
  const list = await env.ph.request('GET', '/v1/inbound/emails');
  t.deepEqual(
    list.body.data.map((email: { subject: string }) => email.subject),
    ['Exactly'],
  );
  const email = await env.ph.request('GET', `/v1/inbound/emails/${list.body.data[0].id}`);
  // The stored text has LF line ends (mailparser); nothing else differs.
  t.is(email.body.text, exact.slice(exact.indexOf('\r\n\r\n') + 4).replace(/\r\n/g, '\n'));
  t.deepEqual(spoolFiles(env.ph.dataDir), []);
});

test('dot-stuffed lines arrive unstuffed however the client splits its writes', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  const lines = ['.', '..', '.leading dot', '...', 'a line', '.', ''];
  const text = Array.from({ length: 400 }, (_, n) => lines[n % lines.length]).join('\r\n');
  const message = `Subject: Dots\r\n\r\n${text}\r\n`;
  const wire = `${message.replace(/^\./gm, '..')}.\r\n`;
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  await beginData(t, smtp);
  // Pieces of 1 to 7 bytes, each flushed before the next: the dots and CRLFs fall on every boundary.
  let at = 0;
  for (let size = 1; at < wire.length - 7; size = (size % 7) + 1) {
    await smtp.write(wire.slice(at, at + size));
    at += size;
  }
  t.is((await smtp.data(wire.slice(at))).code, 250);
  await env.settled();
  const list = await env.ph.request('GET', '/v1/inbound/emails');
  const email = await env.ph.request('GET', `/v1/inbound/emails/${list.body.data[0].id}`);
  t.is(email.body.text, `${text}\n`.replace(/\r\n/g, '\n'));
});

test('a temporary spool file left by a crash is removed at start and never processed', async (t) => {
  const { dataDir, overrides, projectId, recipient } = await stoppedSetup(t, 'stream');
  const log = createLogger('silent');

  // What a crash before the rename leaves: a whole-looking message under the temporary name, never
  // acknowledged; beside it, one that was committed.
  const spoolDir = join(dataDir, 'inbound', 'spool');
  const spool = await openSpool(spoolDir);
  const envelopeFor = () => ({
    id: newId('rcv'),
    receivedAt: Date.now(),
    mailFrom: 'ann@sender.example',
    recipients: [recipient],
    remoteIp: '127.0.0.1',
    helo: 'client.example',
    clientHostname: 'client.example',
    tls: false,
  });
  const message = (subject: string) =>
    Buffer.from(`From: ann@sender.example\r\nTo: support@${DOMAIN}\r\nSubject: ${subject}\r\n\r\nHello.\r\n`);
  const unfinished = envelopeFor();
  writeFileSync(
    join(spoolDir, `${unfinished.id}.eml.tmp`),
    Buffer.concat([Buffer.from(`${JSON.stringify(unfinished)}\n`), message('Never acknowledged')]),
  );
  await spool.write(envelopeFor(), [message('Acknowledged')]);
  const left = spoolFiles(dataDir);
  t.is(left.filter((name) => name.endsWith('.eml.tmp')).length, 1);
  t.is(left.filter((name) => name.endsWith('.eml')).length, 1);

  const restarted = await startServer(testConfig(dataDir, overrides), log);
  t.teardown(() => restarted.stop());
  await restarted.services.inbound.ready();
  await restarted.services.inbound.settled();
  const listed = await restarted.services.inbound.listEmails(projectId, { limit: 10 });
  t.deepEqual(
    listed.data.map((m) => m.subject),
    ['Acknowledged'],
  );
  t.deepEqual(spoolFiles(dataDir), []);
  const [receipt] = (await query<{ n: number }>(
    restarted.kernel.store,
    'select count(*) as n from inbound_receipts where id = ?',
    unfinished.id,
  )) as [{ n: number }];
  t.is(receipt.n, 0, 'the unacknowledged transaction left no receipt');
});
