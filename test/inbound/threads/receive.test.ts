/**
 * Routed mail end to end: delivered over real SMTP, parsed, stored, authenticated (SPF, DKIM,
 * DMARC against records in the loopback DNS server), listed and shown by the API, announced with
 * `email.received`.
 */
import { generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { MX_HOST } from '../../domains/env.js';
import { createRoute, DOMAIN, eventRows, startInboundEnv } from '../env.js';

test('a routed message is parsed, stored, listed and announced with email.received', async (t) => {
  const env = await startInboundEnv(t);
  const route = await createRoute(env.ph, env.domainId, 'support');
  const info = await env.send({
    from: '"Ann Example" <ann@sender.example>',
    to: `Support <support@${DOMAIN}>`,
    cc: 'bob@sender.example',
    replyTo: 'replies@sender.example',
    subject: 'Order 1234 arrived broken',
    text: 'Hello,\nthe vase arrived in pieces.\n',
    html: '<p>Hello,</p><p>the vase arrived in pieces.</p>',
    messageId: '<order-1234@sender.example>',
    headers: { 'X-Customer': 'c-42' },
    envelope: { from: 'bounce@sender.example', to: [`support@${DOMAIN}`] },
  });
  t.regex(info.response, /^250 2\.\d\.\d Queued as rcv_/);
  await env.settled();

  const list = await env.ph.request('GET', '/v1/inbound/emails');
  t.is(list.status, 200);
  t.is(list.body.data.length, 1);
  t.false(list.body.has_more);
  const [summary] = list.body.data;
  t.like(summary, {
    from: '"Ann Example" <ann@sender.example>',
    to: [`support@${DOMAIN}`],
    cc: ['bob@sender.example'],
    subject: 'Order 1234 arrived broken',
    attachment_count: 0,
  });
  t.regex(summary.id, /^inb_/);
  t.regex(summary.thread_id, /^thr_/);

  const detail = await env.ph.request('GET', `/v1/inbound/emails/${summary.id}`);
  t.is(detail.status, 200);
  t.like(detail.body, {
    route_id: route.id,
    reply_to: ['replies@sender.example'],
    text: 'Hello,\nthe vase arrived in pieces.\n',
    html: '<p>Hello,</p><p>the vase arrived in pieces.</p>',
    message_id: 'order-1234@sender.example',
    in_reply_to: null,
    references: [],
    envelope: {
      mail_from: 'bounce@sender.example',
      rcpt_to: [`support@${DOMAIN}`],
      remote_ip: '127.0.0.1',
      helo: 'client.example',
      tls: true,
    },
  });
  t.truthy(detail.body.date);
  const header = (name: string) => detail.body.headers.find((h: { name: string }) => h.name === name)?.value;
  t.is(header('x-customer'), 'c-42');
  t.regex(
    header('received'),
    new RegExp(`by ${MX_HOST.replaceAll('.', '\\.')} \\(Posthorn\\) with ESMTPS id rcv_`),
  );
  t.true(detail.body.size_bytes > 100);

  const [event] = await eventRows(env.ph, 'email.received');
  t.truthy(event);
  t.is(event?.project_id, env.ph.owner.projectId);
  t.like(event?.data, {
    email_id: summary.id,
    thread_id: summary.thread_id,
    subject: 'Order 1234 arrived broken',
    attachments: [],
  });

  const other = await env.ph.bootstrap();
  t.is((await env.ph.request('GET', `/v1/inbound/emails/${summary.id}`, { key: other.apiKey })).status, 404);
  t.is((await env.ph.request('GET', '/v1/inbound/emails', { key: other.apiKey })).body.data.length, 0);
});

test('received emails are paged newest first', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId);
  for (let i = 1; i <= 3; i++) {
    await env.send({
      from: 'a@sender.example',
      to: `n${i}@${DOMAIN}`,
      subject: `Message ${i}`,
      text: `${i}`,
    });
  }
  await env.settled();
  const first = await env.ph.request('GET', '/v1/inbound/emails?limit=2');
  t.deepEqual(
    first.body.data.map((m: { subject: string }) => m.subject),
    ['Message 3', 'Message 2'],
  );
  t.true(first.body.has_more);
  const next = await env.ph.request('GET', `/v1/inbound/emails?limit=2&after=${first.body.data[1].id}`);
  t.deepEqual(
    next.body.data.map((m: { subject: string }) => m.subject),
    ['Message 1'],
  );
  t.false(next.body.has_more);
  t.is((await env.ph.request('GET', '/v1/inbound/emails?limit=0')).status, 400);
});

test('SPF, DKIM and DMARC results are stored for a message signed with a known key', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const p = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  env.dns.set('sel1._domainkey.signed.example', 'TXT', [`v=DKIM1; k=rsa; p=${p}`]);
  env.dns.set('signed.example', 'TXT', ['v=spf1 ip4:127.0.0.1 -all']);
  env.dns.set('_dmarc.signed.example', 'TXT', ['v=DMARC1; p=reject']);
  env.dns.set('forged.example', 'TXT', ['v=spf1 ip4:192.0.2.1 -all']);
  env.dns.set('_dmarc.forged.example', 'TXT', ['v=DMARC1; p=quarantine']);

  const signed = {
    from: 'Signed <news@signed.example>',
    to: `support@${DOMAIN}`,
    subject: 'Signed',
    text: 'This message carries a DKIM signature.',
    envelope: { from: 'news@signed.example', to: [`support@${DOMAIN}`] },
    dkim: {
      domainName: 'signed.example',
      keySelector: 'sel1',
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    },
  };
  await env.send(signed);
  await env.send({
    from: 'Forged <ceo@forged.example>',
    to: `support@${DOMAIN}`,
    subject: 'Unsigned',
    text: 'Wire the money.',
    envelope: { from: 'ceo@forged.example', to: [`support@${DOMAIN}`] },
  });
  await env.settled();
  const list = await env.ph.request('GET', '/v1/inbound/emails');
  const bySubject = async (subject: string) => {
    const id = list.body.data.find((m: { subject: string }) => m.subject === subject).id;
    return (await env.ph.request('GET', `/v1/inbound/emails/${id}`)).body.auth;
  };

  const good = await bySubject('Signed');
  t.is(good.spf.result, 'pass');
  t.is(good.spf.domain, 'signed.example');
  t.is(good.dkim.length, 1);
  t.like(good.dkim[0], { result: 'pass', domain: 'signed.example', selector: 'sel1', aligned: true });
  t.like(good.dmarc, { result: 'pass', domain: 'signed.example', policy: 'reject' });
  t.regex(good.authentication_results, /^mx\.posthorn\.example; dkim=pass.*spf=pass.*dmarc=pass/s);

  const bad = await bySubject('Unsigned');
  t.is(bad.spf.result, 'fail');
  t.deepEqual(
    bad.dkim.map((d: { result: string }) => d.result),
    ['none'],
  );
  t.like(bad.dmarc, { result: 'fail', domain: 'forged.example', policy: 'quarantine' });
});
