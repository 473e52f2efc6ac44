/**
 * The SMTP listener's protocol surface and limits, seen from a raw socket: greeting and EHLO
 * keywords, STARTTLS with the certificate generated at start, SIZE, recipients per message,
 * connections per IP, refused recipients, commands before DATA, idle and session time limits.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import test from 'ava';
import { MX_HOST } from '../../domains/env.js';
import { createRoute, DOMAIN, startInboundEnv } from '../env.js';
import { openSmtp } from '../smtp-client.js';

test('the greeting names the host; EHLO offers STARTTLS, SIZE, PIPELINING and enhanced codes, not AUTH', async (t) => {
  const { smtpPort } = await startInboundEnv(t, { smtp_in: { max_message_bytes: 1_000_000 } });
  const smtp = await openSmtp(smtpPort);
  t.teardown(() => smtp.end());
  t.regex(smtp.greeting.text, new RegExp(`^220 ${MX_HOST} ESMTP`));
  const ehlo = await smtp.command('EHLO client.example');
  t.is(ehlo.code, 250);
  const keywords = ehlo.lines.slice(1).map((line) => line.slice(4));
  t.true(keywords.includes('STARTTLS'));
  t.true(keywords.includes('SIZE 1000000'));
  t.true(keywords.includes('PIPELINING'));
  t.true(keywords.includes('ENHANCEDSTATUSCODES'));
  t.false(keywords.some((k) => k.startsWith('AUTH')));
  const oversized = await smtp.command('MAIL FROM:<a@sender.example> SIZE=2000000');
  t.is(oversized.code, 552);
});

test('STARTTLS upgrades with a self-signed certificate generated at start for the configured hostname', async (t) => {
  const { ph, smtpPort } = await startInboundEnv(t);
  t.true(existsSync(join(ph.dataDir, 'tls', 'self-signed.crt')));
  const smtp = await openSmtp(smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  t.is((await smtp.command('STARTTLS')).code, 220);
  // The raw client's socket is not exposed; a second connection does the handshake by hand.
  const { connect } = await import('node:net');
  const plain = connect({ host: '127.0.0.1', port: smtpPort });
  t.teardown(() => plain.destroy());
  const read = () =>
    new Promise<string>((resolve) => plain.once('data', (chunk) => resolve(chunk.toString())));
  await read();
  plain.write('EHLO client.example\r\n');
  await read();
  plain.write('STARTTLS\r\n');
  t.regex(await read(), /^220 /);
  const secure = tlsConnect({ socket: plain, rejectUnauthorized: false, servername: MX_HOST });
  await new Promise<void>((resolve, reject) => {
    secure.once('secureConnect', () => resolve());
    secure.once('error', reject);
  });
  t.is(secure.getPeerCertificate().subject.CN, MX_HOST);
  secure.write('EHLO client.example\r\n');
  const reply = await new Promise<string>((resolve) =>
    secure.once('data', (chunk) => resolve(chunk.toString())),
  );
  t.regex(reply, /^250-/);
  t.false(reply.includes('STARTTLS'), 'STARTTLS is not offered twice');
  secure.destroy();
});

test('a message larger than max_message_bytes is refused with 552 5.3.4', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { max_message_bytes: 20_000 } });
  await createRoute(env.ph, env.domainId, 'support');
  const error = await t.throwsAsync(
    env.send({ from: 'a@sender.example', to: `support@${DOMAIN}`, subject: 'Big', text: 'x'.repeat(40_000) }),
  );
  t.regex(String((error as { response?: string }).response), /^552 5\.3\.4/);
  await env.settled();
  t.is((await env.ph.request('GET', '/v1/inbound/emails')).body.data.length, 0);
});

test('recipients beyond max_recipients are refused with 452', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { max_recipients: 2 } });
  await createRoute(env.ph, env.domainId);
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  await smtp.command('MAIL FROM:<a@sender.example>');
  t.is((await smtp.command(`RCPT TO:<one@${DOMAIN}>`)).code, 250);
  t.is((await smtp.command(`RCPT TO:<two@${DOMAIN}>`)).code, 250);
  t.is((await smtp.command(`RCPT TO:<three@${DOMAIN}>`)).code, 452);
});

test('connections beyond max_connections_per_ip are refused with 421', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { max_connections_per_ip: 2 } });
  const first = await openSmtp(env.smtpPort);
  const second = await openSmtp(env.smtpPort);
  t.teardown(() => {
    first.end();
    second.end();
  });
  t.is(second.greeting.code, 220);
  const third = await openSmtp(env.smtpPort);
  t.is(third.greeting.code, 421);
  await third.closed();
  first.end();
  await first.closed();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const again = await openSmtp(env.smtpPort);
  t.is(again.greeting.code, 220, 'a slot is free again once a connection closed');
  again.end();
});

test('a client guessing addresses is cut off after max_refused_recipients', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { max_refused_recipients: 3 } });
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  await smtp.command('MAIL FROM:<a@sender.example>');
  for (const name of ['a', 'b', 'c']) t.is((await smtp.command(`RCPT TO:<${name}@${DOMAIN}>`)).code, 550);
  const cut = await smtp.command(`RCPT TO:<d@${DOMAIN}>`);
  t.is(cut.code, 421);
  await smtp.closed();
  t.true(smtp.isClosed());
});

test('a client sending too many commands before DATA is cut off', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { max_commands: 6 } });
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  for (let i = 0; i < 5; i++) t.is((await smtp.command('NOOP')).code, 250);
  const cut = await smtp.command('MAIL FROM:<a@sender.example>');
  t.is(cut.code, 421);
  await smtp.closed();
});

test('a client pipelining a flood of NOOPs is cut off with 421 once past max_commands', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { max_commands: 6 } });
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  await smtp.write(`EHLO client.example\r\n${'NOOP\r\n'.repeat(1000)}`);
  const codes: number[] = [];
  for (;;) {
    const reply = await smtp.next().catch(() => undefined);
    if (!reply) break;
    codes.push(reply.code);
    if (reply.code === 421) break;
  }
  t.deepEqual(codes, [250, 250, 250, 250, 250, 250, 421], 'EHLO and five NOOPs answered, then 421');
  await smtp.closed();
});

test('a silent client is disconnected after idle_timeout', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { idle_timeout: '500ms' } });
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  const started = Date.now();
  await smtp.closed();
  t.true(Date.now() - started < 3_000);
});

test('a connection is closed with 421 once max_session has passed, however busy', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { max_session: '1s', max_commands: 1000 } });
  const smtp = await openSmtp(env.smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO client.example');
  const started = Date.now();
  const codes: number[] = [];
  while (codes.at(-1) !== 421 && Date.now() - started < 5_000) {
    try {
      codes.push((await smtp.command('NOOP')).code);
    } catch {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await smtp.closed();
  t.true(smtp.isClosed());
  t.true(Date.now() - started < 3_000);
  t.is(codes.at(-1), 421);
  t.true(codes.slice(0, -1).every((code) => code === 250));
});
