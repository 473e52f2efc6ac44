/**
 * Mail about sent mail is bounded in what it can cause: one DSN gives at most one outcome per
 * recipient, however many blocks it repeats, and what arrives at a bounce or complaint address
 * is read without reading the whole message on the event loop.
 */
import test from 'ava';
import { eventRows, startInboundEnv } from '../env.js';
import { dsn, FBL, recipientRow, sendAndDeliver, verp } from '../feedback-env.js';
import { sendRaw } from '../smtp-client.js';
import { query } from '../../helpers/sql.js';

test('a DSN repeating one recipient thousands of times gives one outcome for it', async (t) => {
  const env = await startInboundEnv(t);
  const sent = await sendAndDeliver(env, ['ivy@example.net']);
  const id = sent.recipients['ivy@example.net'] as string;
  const to = verp(env, { kind: 'recipient', id });
  const delayed = 'Final-Recipient: rfc822; ivy@example.net\nAction: delayed\nStatus: 4.2.2';
  const reply = await sendRaw(
    env.smtpPort,
    '',
    [to],
    dsn(
      to,
      sent,
      Array.from({ length: 2000 }, () => delayed),
    ),
  );
  t.is(reply.code, 250);
  await env.settled();
  t.is((await eventRows(env.ph, 'email.delivery_delayed')).length, 1);

  // A failure outranks a delay for the same recipient in one report.
  const failed = 'Final-Recipient: rfc822; ivy@example.net\nAction: failed\nStatus: 5.1.1';
  const second = await sendRaw(env.smtpPort, '', [to], dsn(to, sent, [delayed, failed, failed]));
  t.is(second.code, 250);
  await env.settled();
  t.is((await eventRows(env.ph, 'email.delivery_delayed')).length, 1);
  t.is((await eventRows(env.ph, 'email.bounced')).length, 1);
  t.is((await recipientRow(env, id)).status, 'bounced');
});

test('a complaint address flooded with header lines records an ignored receipt and keeps serving', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { complaint_address: FBL } });
  // 3 MB of one-line fields: the report reader looks at its first MB only, on a worker thread.
  const flood = `From: a@flood.example\nTo: ${FBL}\n${'a:b\n'.repeat(750_000)}\nbody\n`;
  const reply = await sendRaw(env.smtpPort, 'a@flood.example', [FBL], flood);
  t.is(reply.code, 250);
  await env.settled();
  const [receipt] = (await query<{ kind: string; outcome: string }>(
    env.ph.server.kernel.store,
    'select kind, outcome from inbound_receipts',
  )) as [{ kind: string; outcome: string }];
  t.is(receipt.kind, 'ignored');
  t.like(JSON.parse(receipt.outcome), {
    ignored: 'neither a delivery status notification nor a feedback report',
  });
  t.is((await env.ph.request('GET', '/health')).status, 200);
});
