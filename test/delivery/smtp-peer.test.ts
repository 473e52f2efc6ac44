/**
 * The SMTP peer helper, checked with an independent client (nodemailer's SMTP transport) before
 * delivery tests rely on it.
 */
import { connect } from 'node:net';
import test from 'ava';
import nodemailer from 'nodemailer';
import { type SmtpPeer, startSmtpPeer } from '../helpers/smtp-peer.js';

const raw = [
  'From: sender@posthorn.test',
  'To: a@x.test, b@x.test',
  'Subject: peer self-test',
  'Message-ID: <peer-self-test@posthorn.test>',
  '',
  'First line.',
  '.A line that starts with a dot survives dot-stuffing.',
  '',
].join('\r\n');

function transport(peer: SmtpPeer, pool = false) {
  const options = {
    host: peer.host,
    port: peer.port,
    secure: false,
    name: 'client.posthorn.test',
    tls: { rejectUnauthorized: false },
    connectionTimeout: 5000,
  };
  return pool
    ? nodemailer.createTransport({ ...options, pool: true, maxConnections: 1 })
    : nodemailer.createTransport(options);
}

function send(peer: SmtpPeer, to: string[], message = raw) {
  return transport(peer).sendMail({ envelope: { from: 'bounce+1@posthorn.test', to }, raw: message });
}

/** Reads the EHLO reply the way a client sees it. */
function ehlo(peer: SmtpPeer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(peer.port, peer.host);
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (/^220 /m.test(buffer) && !buffer.includes('EHLO sent')) {
        buffer = 'EHLO sent\r\n';
        socket.write('EHLO probe.posthorn.test\r\n');
      } else if (/^250 /m.test(buffer)) {
        socket.end('QUIT\r\n');
        resolve(buffer);
      }
    });
  });
}

test('the peer records the envelope, the EHLO name and the exact message bytes', async (t) => {
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  const info = await send(peer, ['a@x.test', 'b@x.test']);
  t.deepEqual(info.accepted, ['a@x.test', 'b@x.test']);
  const [message] = await peer.waitFor(1);
  t.is(message?.clientHostname, 'client.posthorn.test');
  t.is(message?.mailFrom, 'bounce+1@posthorn.test');
  t.deepEqual(message?.rcptTo, ['a@x.test', 'b@x.test']);
  t.deepEqual(message?.rejectedRcptTo, []);
  t.true(Buffer.isBuffer(message?.data));
  t.is(message?.data.toString('utf8'), raw);
  t.false(message?.secure);
  t.deepEqual(message?.reply, { code: 250, text: 'OK: message queued' });
});

test('a recipient scripted with 550 5.1.1 is refused and the others are accepted', async (t) => {
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  peer.rcptReply('Nobody@X.test', 550, '5.1.1 User unknown');
  const info = await send(peer, ['a@x.test', 'nobody@x.test']);
  t.deepEqual(info.accepted, ['a@x.test']);
  t.deepEqual(info.rejected, ['nobody@x.test']);
  t.is(info.rejectedErrors?.[0]?.response, '550 5.1.1 User unknown');
  const [message] = await peer.waitFor(1);
  t.deepEqual(message?.rcptTo, ['a@x.test']);
  t.deepEqual(message?.rejectedRcptTo, ['nobody@x.test']);
});

test('a script limited to one use answers once, then the peer accepts again', async (t) => {
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  peer.rcptReply('later@x.test', 450, '4.2.1 Try again later', { times: 1 });
  await t.throwsAsync(send(peer, ['later@x.test']), { message: /450 4\.2\.1 Try again later/ });
  const info = await send(peer, ['later@x.test']);
  t.deepEqual(info.accepted, ['later@x.test']);
});

test('MAIL FROM and end-of-DATA replies can be scripted', async (t) => {
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  peer.mailFromReply(451, '4.3.0 Temporary failure', { times: 1 });
  const mailErr = await t.throwsAsync(send(peer, ['a@x.test']));
  t.is((mailErr as Error & { responseCode?: number }).responseCode, 451);

  peer.dataReply(554, '5.7.1 Message rejected as spam', { times: 1 });
  const dataErr = await t.throwsAsync(send(peer, ['a@x.test']));
  t.is((dataErr as Error & { response?: string }).response, '554 5.7.1 Message rejected as spam');
  const [message] = await peer.waitFor(1);
  t.deepEqual(message?.reply, { code: 554, text: '5.7.1 Message rejected as spam' });

  peer.dataReply(250, '2.0.0 Ok: queued as ABC123');
  const info = await send(peer, ['a@x.test']);
  t.is(info.response, '250 2.0.0 Ok: queued as ABC123');
});

test('a connection scripted with 421 is refused at the greeting and counted', async (t) => {
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  peer.connectReply(421, '4.3.2 Service not available', { times: 1 });
  const err = await t.throwsAsync(send(peer, ['a@x.test']));
  t.is((err as Error & { responseCode?: number }).responseCode, 421);
  await send(peer, ['a@x.test']);
  t.is(peer.connections, 2);
  t.is(peer.messages.length, 1);
});

test('STARTTLS is used when the peer offers it', async (t) => {
  const peer = await startSmtpPeer({ starttls: true });
  t.teardown(() => peer.close());
  t.regex(await ehlo(peer), /STARTTLS/);
  await send(peer, ['a@x.test']);
  const [message] = await peer.waitFor(1);
  t.true(message?.secure);
});

test('without STARTTLS the peer neither advertises nor accepts it', async (t) => {
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  t.notRegex(await ehlo(peer), /STARTTLS/);
  const client = nodemailer.createTransport({ host: peer.host, port: peer.port, requireTLS: true });
  await t.throwsAsync(client.sendMail({ envelope: { from: 'a@posthorn.test', to: ['a@x.test'] }, raw }));
  t.is(peer.messages.length, 0);
});

test('the peer advertises PIPELINING and its SIZE limit, and refuses a bigger message', async (t) => {
  const peer = await startSmtpPeer({ size: 1000 });
  t.teardown(() => peer.close());
  const features = await ehlo(peer);
  t.regex(features, /^250-PIPELINING/m);
  t.regex(features, /^250[- ]SIZE 1000/m);
  const big = `${raw}${'x'.repeat(2000)}\r\n`;
  const err = await t.throwsAsync(send(peer, ['a@x.test'], big));
  t.is((err as Error & { responseCode?: number }).responseCode, 552);
});

test('a pooled client reuses one connection for several messages', async (t) => {
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  const client = transport(peer, true);
  t.teardown(() => client.close());
  for (let i = 0; i < 3; i += 1) {
    await client.sendMail({ envelope: { from: 'a@posthorn.test', to: [`r${i}@x.test`] }, raw });
  }
  const messages = await peer.waitFor(3);
  t.is(peer.connections, 1);
  t.deepEqual(
    messages.map((m) => m.connection),
    [1, 1, 1],
  );
});

test('waiting for more messages than arrive fails with a clear message', async (t) => {
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  await t.throwsAsync(peer.waitFor(1, 50), { message: /waited 50 ms for 1 message\(s\), got 0/ });
});
