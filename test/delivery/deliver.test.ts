import test from 'ava';
import { simpleParser } from 'mailparser';
import { parseVerp, verpKey } from '../../src/delivery/smtp/verp.js';
import { dkimpyVerify } from '../helpers/dkimpy-verify.js';
import {
  EHLO_NAME,
  events,
  eventually,
  messageStatus,
  mx,
  rows,
  send,
  settled,
  startDeliveryEnv,
} from './env.js';

test('a sent message reaches the MX with its headers, a VERP return path and a DKIM signature dkimpy verifies', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const id = await send(env, {
    to: ['Ann Example <ann@example.net>'],
    cc: ['cy@example.net'],
    bcc: ['secret@example.net'],
    reply_to: ['support@acme.test'],
    subject: 'Your receipt',
    headers: {
      'List-Unsubscribe': '<https://acme.test/u/1>, <mailto:u@acme.test>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  });
  const [received] = await env.peer.waitFor(1);
  if (!received) throw new Error('nothing received');
  t.is(received.clientHostname, EHLO_NAME, 'EHLO uses delivery.hostname');
  t.deepEqual([...received.rcptTo].sort(), ['ann@example.net', 'cy@example.net', 'secret@example.net']);

  const target = parseVerp(verpKey(env.ph.server.kernel.masterKey), received.mailFrom);
  t.is(target?.kind, 'job', 'three recipients in one transaction: the return path names the job');
  t.true(received.mailFrom.endsWith('@bounces.acme.test'));

  const parsed = await simpleParser(received.data);
  t.is(parsed.messageId, `<${id}@acme.test>`);
  t.is(parsed.subject, 'Your receipt');
  t.truthy(parsed.date);
  t.is(parsed.headers.get('mime-version'), '1.0');
  t.false(
    received.data.toString('latin1').toLowerCase().includes('secret@example.net'),
    'Bcc is never in the message',
  );
  const head = received.data.toString('latin1').split('\r\n\r\n')[0] ?? '';
  t.regex(head, /\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n/);
  t.regex(head, /\r\nList-Unsubscribe: <https:\/\/acme\.test\/u\/1>, <mailto:u@acme\.test>\r\n/);
  const signature = head.slice(head.indexOf('DKIM-Signature:'));
  t.true(head.startsWith('DKIM-Signature: '), 'the signature is the first header');
  t.regex(signature, /d=acme\.test/);
  t.regex(signature, /c=relaxed\/relaxed/);
  t.regex(signature, /h=[^;]*list-unsubscribe/i);
  // The DKIM-Signature field unfolded: its first line and the continuation lines right after it.
  const lines = signature.split('\r\n');
  const end = lines.findIndex((line, index) => index > 0 && !/^\s/.test(line));
  const signed = /\bh=([^;]*)/.exec(lines.slice(0, end).join(''))?.[1];
  const signedNames = (signed ?? '').replace(/\s+/g, '').toLowerCase().split(':');
  for (const name of ['from', 'to', 'cc', 'reply-to', 'subject', 'date', 'message-id', 'mime-version']) {
    t.true(signedNames.includes(name), `h= covers ${name}: ${signed}`);
  }
  t.true(signedNames.includes('list-unsubscribe'), `h= covers List-Unsubscribe: ${signed}`);
  t.true(signedNames.includes('list-unsubscribe-post'), `h= covers List-Unsubscribe-Post: ${signed}`);
  t.false(signedNames.includes('bcc'));

  const verdict = await dkimpyVerify(received.data, { host: env.dns.host, port: env.dns.port });
  t.true(verdict.ok, verdict.output);

  t.is(await settled(env.ph, id), 'delivered');
  const delivered = events(env.ph, id).filter((e) => e.type === 'email.delivered');
  t.deepEqual(delivered.map((e) => e.recipient).sort(), [
    'ann@example.net',
    'cy@example.net',
    'secret@example.net',
  ]);
  const first = delivered[0]?.data;
  t.is(first?.email_id, id);
  t.is(first?.delivery.mx_host, 'mx1.example.net');
  t.is(typeof first?.delivery.latency_ms, 'number');
  t.is(first?.lane, 'default', 'the provider lane is named, so analytics can group by it');
  t.regex(String(first?.delivery.smtp_response), /^250/);
});

test('one recipient gets a return path naming that recipient', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const id = await send(env, { to: ['ann@example.net'] });
  const [received] = await env.peer.waitFor(1);
  const target = parseVerp(verpKey(env.ph.server.kernel.masterKey), received?.mailFrom ?? '');
  const [recipient] = rows<{ id: string }>(
    env.ph,
    'select id from message_recipients where message_id = ?',
    id,
  );
  t.deepEqual(target, { kind: 'recipient', id: recipient?.id, domain: 'bounces.acme.test' });
  const back = await env.ph.server.services.delivery.bounceTarget(received?.mailFrom ?? '');
  t.is(back?.messageId, id);
  t.deepEqual(
    back?.recipients.map((r) => r.email),
    ['ann@example.net'],
  );
});

test('several recipients share one transaction and each gets its own outcome', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('nobody@example.net', 550, '5.1.1 User unknown');
  env.peer.rcptReply('busy@example.net', 452, '4.2.2 Mailbox busy, try again', { times: 1 });
  const id = await send(env, { to: ['ann@example.net', 'nobody@example.net', 'busy@example.net'] });
  const [received] = await env.peer.waitFor(1);
  t.deepEqual(received?.rcptTo, ['ann@example.net']);
  t.deepEqual([...(received?.rejectedRcptTo ?? [])].sort(), ['busy@example.net', 'nobody@example.net']);

  await eventually('the deferral', () => events(env.ph, id).some((e) => e.type === 'email.delivery_delayed'));
  t.is(messageStatus(env.ph, id), 'deferred');
  const bounced = events(env.ph, id).find((e) => e.type === 'email.bounced');
  t.is(bounced?.recipient, 'nobody@example.net');
  t.like(bounced?.data.bounce, { type: 'hard', category: 'mailbox_unknown', status: '5.1.1' });
  const suppressed = await env.ph.request('GET', '/v1/suppressions/nobody@example.net');
  t.is(suppressed.status, 200, 'a hard bounce suppresses the address');
  t.is(suppressed.body.reason, 'hard_bounce');

  // The deferred recipient is retried on the schedule (1s here) and delivered.
  t.is(await settled(env.ph, id), 'partially_delivered');
  const [retry] = (await env.peer.waitFor(2)).slice(1);
  t.deepEqual(retry?.rcptTo, ['busy@example.net']);
  t.deepEqual(
    events(env.ph, id).map((e) => `${e.type} ${e.recipient ?? ''}`),
    [
      'email.sent ',
      'email.delivered ann@example.net',
      'email.bounced nobody@example.net',
      'email.delivery_delayed busy@example.net',
      'email.delivered busy@example.net',
    ].filter((line) => line !== 'email.sent ' || events(env.ph, id).some((e) => e.type === 'email.sent')),
  );
});

test('a 4xx at the end of DATA is retried on the schedule and then delivered', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.dataReply(451, '4.3.0 Temporary local problem', { times: 1 });
  const id = await send(env, { to: ['ann@example.net'] });
  t.is(await settled(env.ph, id), 'delivered');
  const types = events(env.ph, id).map((e) => e.type);
  t.deepEqual(
    types.filter((type) => type !== 'email.sent'),
    ['email.delivery_delayed', 'email.delivered'],
  );
  const delay = events(env.ph, id).find((e) => e.type === 'email.delivery_delayed');
  t.is(delay?.data.delay.status, '4.3.0');
  t.is(delay?.data.delay.attempt, 1);
  t.is(env.peer.messages.length, 2);
});

test('a null MX bounces at once without a connection', async (t) => {
  const env = await startDeliveryEnv(t);
  env.dns.set('nomail.example', 'MX', [{ preference: 0, exchange: '.' }]);
  const id = await send(env, { to: ['ann@nomail.example'] });
  t.is(await settled(env.ph, id), 'bounced');
  const bounce = events(env.ph, id).find((e) => e.type === 'email.bounced');
  t.like(bounce?.data.bounce, { status: '5.1.10', category: 'domain_unknown' });
  t.is(env.peer.connections, 0);
});

test('an unreachable primary MX fails over to the next one', async (t) => {
  const env = await startDeliveryEnv(t);
  // 127.0.0.2 is loopback but nothing listens there: the connection is refused.
  mx(env.dns, 'example.net', [
    { host: 'mx1.example.net', ip: '127.0.0.2', preference: 10 },
    { host: 'mx2.example.net', ip: '127.0.0.1', preference: 20 },
  ]);
  const id = await send(env, { to: ['ann@example.net'] });
  t.is(await settled(env.ph, id), 'delivered');
  const delivered = events(env.ph, id).find((e) => e.type === 'email.delivered');
  t.is(delivered?.data.delivery.mx_host, 'mx2.example.net');
});

test('a connection is reused for several messages to the same MX', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  mx(env.dns, 'example.org', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  for (const to of ['a@example.net', 'b@example.org', 'c@example.net']) {
    const id = await send(env, { to: [to] });
    await settled(env.ph, id);
  }
  t.is(env.peer.messages.length, 3);
  t.is(env.peer.connections, 1, 'one connection carried all three');
  t.deepEqual(
    env.peer.messages.map((m) => m.connection),
    [1, 1, 1],
  );
});

test('a domain that does not exist bounces without a connection', async (t) => {
  const env = await startDeliveryEnv(t);
  const id = await send(env, { to: ['ann@does-not-exist.example'] });
  t.is(await settled(env.ph, id), 'bounced');
  t.like(events(env.ph, id).find((e) => e.type === 'email.bounced')?.data.bounce, {
    status: '5.1.2',
    type: 'hard',
  });
  t.is(env.peer.connections, 0);
});

test('a 5xx greeting defers the message rather than bouncing or suppressing the recipient', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  // RFC 5321 §3.1: "no SMTP service here" answers the session, not the recipient.
  env.peer.connectReply(554, 'mx1.example.net no SMTP service here', { times: 1 });
  const id = await send(env, { to: ['ann@example.net'] });
  t.is(await settled(env.ph, id), 'delivered');
  const delay = events(env.ph, id).find((e) => e.type === 'email.delivery_delayed');
  t.like(delay?.data.delay, { attempt: 1, status: '5.0.0' });
  t.regex(String(delay?.data.delay.smtp_response), /^554 .*no SMTP service here/);
  t.deepEqual(rows(env.ph, 'select email from suppressions'), []);
  t.is(env.peer.messages.length, 1);
});
