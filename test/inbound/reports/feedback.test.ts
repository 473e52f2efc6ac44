/**
 * Mail about sent mail, end to end over SMTP: a DSN (RFC 3464) to the VERP Return-Path of a sent
 * message, and complaint reports (ARF, RFC 5965) to the complaint address, each mapped to the
 * right message and recipient, with the delivery engine's events and the suppressions they imply.
 * A report about one of several recipients is authenticated (DKIM) as a receiver's would be; what
 * an unauthenticated one may do is in feedback-proof.test.ts.
 */
import test from 'ava';
import { DOMAIN, eventRows, startInboundEnv } from '../env.js';
import {
  arf,
  dsn,
  FBL,
  messageStatus,
  recipientRow,
  type Sent,
  sendAndDeliver,
  signedBy,
  verp,
} from '../feedback-env.js';
import { sendRaw } from '../smtp-client.js';
import { query } from '../../helpers/sql.js';

test('a DSN to a VERP address bounces the right recipient with the delivery engine’s events and suppression', async (t) => {
  const env = await startInboundEnv(t);
  const sent = await sendAndDeliver(env, ['bob@example.net', 'carol@example.net']);
  const to = verp(env, { kind: 'job', id: sent.jobId });
  // The recipients' own domain signs its DSN, so it may name either recipient of the transaction.
  const report = dsn(to, sent, [
    `Final-Recipient: rfc822; bob@example.net
Original-Recipient: rfc822;bob@example.net
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.net
Diagnostic-Code: smtp; 550 5.1.1 <bob@example.net>: Recipient address rejected:
    User unknown in local recipient table`,
    `Final-Recipient: rfc822; carol@example.net
Action: delayed
Status: 4.2.2
Diagnostic-Code: smtp; 452 4.2.2 Mailbox full, try later
Will-Retry-Until: Thu, 26 Nov 2026 10:00:00 +0000`,
  ]);
  const reply = await sendRaw(env.smtpPort, '', [to], await signedBy(env, 'example.net', report));
  t.is(reply.code, 250);
  await env.settled();

  const bob = await recipientRow(env, sent.recipients['bob@example.net'] as string);
  t.deepEqual(bob, { status: 'bounced', smtp_code: 550, bounce_category: 'mailbox_unknown' });
  t.is(
    (await recipientRow(env, sent.recipients['carol@example.net'] as string)).status,
    'delivered',
    'a delay changes no status',
  );
  t.is(await messageStatus(env, sent.id), 'partially_delivered');

  const bounced = await eventRows(env.ph, 'email.bounced');
  t.is(bounced.length, 1);
  t.like(bounced[0], { message_id: sent.id, recipient: 'bob@example.net' });
  t.like(bounced[0]?.data, {
    email_id: sent.id,
    subject: 'Your receipt',
    source: 'dsn',
    bounce: {
      recipient: 'bob@example.net',
      type: 'hard',
      category: 'mailbox_unknown',
      status: '5.1.1',
      mx_host: 'mx.example.net',
    },
  });
  const delayed = await eventRows(env.ph, 'email.delivery_delayed');
  t.is(delayed.length, 1);
  t.like(delayed[0]?.data, {
    delay: { recipient: 'carol@example.net', status: '4.2.2', next_attempt_at: '2026-11-26T10:00:00.000Z' },
  });

  const suppressed = await env.ph.request('GET', '/v1/suppressions/bob@example.net');
  t.is(suppressed.status, 200);
  t.like(suppressed.body, { reason: 'hard_bounce', source: 'bounce', message_id: sent.id });
  t.is((await env.ph.request('GET', '/v1/suppressions/carol@example.net')).status, 404);
  t.is(
    (await env.ph.request('GET', '/v1/inbound/emails')).body.data.length,
    0,
    'a DSN is not a received email',
  );
});

test('a soft DSN bounce counts towards repeated_soft_bounce, as a synchronous one does', async (t) => {
  const env = await startInboundEnv(t, { delivery: { soft_bounce_limit: 1 } });
  const sent = await sendAndDeliver(env, ['dave@example.net']);
  const to = verp(env, { kind: 'recipient', id: sent.recipients['dave@example.net'] as string });
  const reply = await sendRaw(
    env.smtpPort,
    '',
    [to],
    dsn(to, sent, [
      `Final-Recipient: rfc822; dave.alias@example.net
Action: failed
Status: 5.2.2
Diagnostic-Code: smtp; 552 5.2.2 Mailbox full`,
    ]),
  );
  t.is(reply.code, 250);
  await env.settled();
  t.like(await recipientRow(env, sent.recipients['dave@example.net'] as string), {
    status: 'bounced',
    bounce_category: 'mailbox_full',
  });
  t.like((await eventRows(env.ph, 'email.bounced'))[0]?.data, {
    bounce: { recipient: 'dave@example.net', type: 'soft' },
  });
  const suppressed = await env.ph.request('GET', '/v1/suppressions/dave@example.net');
  t.is(suppressed.body.reason, 'repeated_soft_bounce');
});

test('a DSN whose recipient cannot be suppressed still records the bounce, without the suppression', async (t) => {
  const env = await startInboundEnv(t);
  const sent = await sendAndDeliver(env, ['erin@example.net']);
  const id = sent.recipients['erin@example.net'] as string;
  // An address the suppression list cannot hold, as a version that accepted quoted local parts stored it.
  await query(
    env.ph.server.kernel.store,
    `update message_recipients set email = '"erin x"@example.net' where id = ?`,
    id,
  );
  const to = verp(env, { kind: 'recipient', id });
  const reply = await sendRaw(
    env.smtpPort,
    '',
    [to],
    dsn(to, sent, [
      `Final-Recipient: rfc822; "erin x"@example.net
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 User unknown`,
    ]),
  );
  t.is(reply.code, 250);
  await env.settled();
  t.like(await recipientRow(env, id), { status: 'bounced', bounce_category: 'mailbox_unknown' });
  t.is((await eventRows(env.ph, 'email.bounced')).length, 1);
  t.is((await env.ph.request('GET', '/v1/suppressions')).body.data.length, 0);
});

test('an ARF complaint to the complaint address marks the recipient complained and suppresses it', async (t) => {
  const env = await startInboundEnv(t, {
    smtp_in: { complaint_address: FBL, feedback_loop_domains: ['isp.example'] },
  });
  const sent = await sendAndDeliver(env, ['bob@example.net', 'carol@example.net']);
  const returnPath = verp(env, { kind: 'job', id: sent.jobId });
  // A configured feedback loop signs its reports, so it may name either recipient.
  const reply = await sendRaw(
    env.smtpPort,
    'feedback@isp.example',
    [FBL],
    await signedBy(
      env,
      'isp.example',
      arf({
        originalMailFrom: returnPath,
        rcptTo: 'carol@example.net',
        headers: `Return-Path: <${returnPath}>
Message-ID: <${sent.id}@${DOMAIN}>
From: Acme <hello@${DOMAIN}>
To: bob@example.net, carol@example.net
Subject: Your receipt

Thanks for your order.
`,
      }),
    ),
  );
  t.is(reply.code, 250);
  await env.settled();

  t.is((await recipientRow(env, sent.recipients['carol@example.net'] as string)).status, 'complained');
  t.is((await recipientRow(env, sent.recipients['bob@example.net'] as string)).status, 'delivered');
  t.is(await messageStatus(env, sent.id), 'delivered', 'a complaint comes after delivery');
  const complained = await eventRows(env.ph, 'email.complained');
  t.is(complained.length, 1);
  t.like(complained[0], { message_id: sent.id, recipient: 'carol@example.net' });
  t.like(complained[0]?.data, {
    email_id: sent.id,
    recipient: 'carol@example.net',
    complaint: {
      feedback_type: 'abuse',
      user_agent: 'ISP-FBL/1.0',
      source_ip: '192.0.2.10',
      reported_domain: DOMAIN,
    },
  });
  const suppression = await env.ph.request('GET', '/v1/suppressions/carol@example.net');
  t.like(suppression.body, { reason: 'spam_complaint', source: 'complaint', message_id: sent.id });
  t.is((await env.ph.request('GET', '/v1/suppressions/bob@example.net')).status, 404);
});

test('a complaint carrying only the reported headers is mapped by its Message-ID and To', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { complaint_address: FBL } });
  const sent = await sendAndDeliver(env, ['erin@example.net']);
  const reply = await sendRaw(
    env.smtpPort,
    'feedback@isp.example',
    [FBL],
    arf({
      headersType: 'text/rfc822-headers',
      headers: `Message-ID: <${sent.id}@${DOMAIN}>
From: Acme <hello@${DOMAIN}>
To: Erin <erin@example.net>
Subject: Your receipt
`,
    }),
  );
  t.is(reply.code, 250);
  await env.settled();
  t.is((await recipientRow(env, sent.recipients['erin@example.net'] as string)).status, 'complained');
  t.is((await env.ph.request('GET', '/v1/suppressions/erin@example.net')).body.reason, 'spam_complaint');
});

test('an auto-reply to a bounce address is accepted and changes nothing', async (t) => {
  const env = await startInboundEnv(t);
  const sent = await sendAndDeliver(env, ['frank@example.net']);
  const to = verp(env, { kind: 'recipient', id: sent.recipients['frank@example.net'] as string });
  const reply = await sendRaw(
    env.smtpPort,
    'frank@example.net',
    [to],
    `From: frank@example.net
To: ${to}
Subject: Out of office

I am away until Monday.
`,
  );
  t.is(reply.code, 250);
  await env.settled();
  t.is((await recipientRow(env, sent.recipients['frank@example.net'] as string)).status, 'delivered');
  t.is((await eventRows(env.ph, 'email.bounced')).length, 0);
  const [receipt] = (await query<{ kind: string }>(
    env.ph.server.kernel.store,
    'select kind from inbound_receipts',
  )) as [{ kind: string }];
  t.is(receipt.kind, 'ignored');
});

test('a repeated complaint changes nothing more, and a bounced recipient cannot complain', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { complaint_address: FBL } });
  const complainAbout = (sent: Sent, to: string) =>
    sendRaw(
      env.smtpPort,
      'feedback@isp.example',
      [FBL],
      arf({
        headersType: 'text/rfc822-headers',
        headers: `Message-ID: <${sent.id}@${DOMAIN}>\nFrom: Acme <hello@${DOMAIN}>\nTo: ${to}\nSubject: Your receipt\n`,
      }),
    );
  const gina = await sendAndDeliver(env, ['gina@example.net']);
  t.is((await complainAbout(gina, 'gina@example.net')).code, 250);
  t.is((await complainAbout(gina, 'gina@example.net')).code, 250);
  await env.settled();
  t.is((await recipientRow(env, gina.recipients['gina@example.net'] as string)).status, 'complained');
  t.is((await eventRows(env.ph, 'email.complained')).length, 1, 'one event for one complaint');

  // A recipient whose delivery bounced never received the mail: a complaint about it is not believed.
  const hank = await sendAndDeliver(env, ['hank@example.net']);
  const hankId = hank.recipients['hank@example.net'] as string;
  await query(
    env.ph.server.kernel.store,
    "update message_recipients set status = 'bounced' where id = ?",
    hankId,
  );
  t.is((await complainAbout(hank, 'hank@example.net')).code, 250);
  await env.settled();
  t.is((await recipientRow(env, hankId)).status, 'bounced');
  t.is((await eventRows(env.ph, 'email.complained')).length, 1);
  t.is((await env.ph.request('GET', '/v1/suppressions/hank@example.net')).status, 404);
  const outcomes = (
    await query<{ outcome: string }>(
      env.ph.server.kernel.store,
      'select outcome from inbound_receipts order by id',
    )
  ).map((row) => JSON.parse(row.outcome) as { complaints?: Array<{ skipped?: string }> });
  t.deepEqual(
    outcomes.map((o) => o.complaints?.[0]?.skipped ?? null),
    [null, 'recipient already complained', 'recipient already bounced'],
  );
});
