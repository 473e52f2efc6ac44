/**
 * A transaction refused at the end of DATA (or at the DATA command) after some recipients were
 * already refused at RCPT TO: each of those keeps the reply it got at RCPT TO, with its
 * classification and suppression; only the recipients the server accepted get the DATA reply
 * (RFC 5321 §3.3: the reply to DATA concerns the recipients accepted, RFC 2920 §3.1).
 */
import test from 'ava';
import { MxConnection, type SmtpError } from '../../../src/delivery/smtp/mx-connection.js';
import { startSmtpPeer } from '../../helpers/smtp-peer.js';
import { events, eventually, messageStatus, mx, rows, send, settled, startDeliveryEnv } from '../env.js';

interface RecipientRow {
  email: string;
  status: string;
  smtp_reply: string | null;
  bounce_category: string | null;
}

function recipients(env: Awaited<ReturnType<typeof startDeliveryEnv>>, id: string): RecipientRow[] {
  return rows<RecipientRow>(
    env.ph,
    'select email, status, smtp_reply, bounce_category from message_recipients where message_id = ? order by email',
    id,
  );
}

test('a recipient refused at RCPT TO keeps its own reply and is suppressed when the end of DATA fails', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('gone@example.net', 550, '5.1.1 User unknown');
  env.peer.dataReply(554, '5.7.1 Message rejected as spam by content filter');
  const id = await send(env, { to: ['ann@example.net', 'gone@example.net'] });

  t.is(await settled(env.ph, id), 'bounced');
  t.deepEqual(recipients(env, id), [
    {
      email: 'ann@example.net',
      status: 'bounced',
      smtp_reply: '554 5.7.1 Message rejected as spam by content filter',
      bounce_category: 'spam_block',
    },
    {
      email: 'gone@example.net',
      status: 'bounced',
      smtp_reply: '550 5.1.1 User unknown',
      bounce_category: 'mailbox_unknown',
    },
  ]);
  const bounces = events(env.ph, id).filter((e) => e.type === 'email.bounced');
  t.like(bounces.find((e) => e.recipient === 'gone@example.net')?.data.bounce, {
    type: 'hard',
    category: 'mailbox_unknown',
    status: '5.1.1',
  });
  const suppressed = await env.ph.request('GET', '/v1/suppressions/gone@example.net');
  t.is(suppressed.status, 200, 'the unknown mailbox is suppressed');
  t.is(suppressed.body.reason, 'hard_bounce');
  t.deepEqual(
    rows(env.ph, 'select email from suppressions order by email'),
    [{ email: 'gone@example.net' }],
    'the recipient the content filter refused is not suppressed',
  );
});

test('a recipient only greylisted at RCPT TO is retried, not bounced by a permanent DATA reply', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('busy@example.net', 451, '4.7.1 Greylisted, try again later', { times: 1 });
  env.peer.dataReply(554, '5.7.1 Message rejected as spam by content filter', { times: 1 });
  const id = await send(env, { to: ['ann@example.net', 'busy@example.net'] });

  await eventually('the deferral', () =>
    events(env.ph, id).find((e) => e.type === 'email.delivery_delayed' && e.recipient === 'busy@example.net'),
  );
  const bounced = events(env.ph, id).filter((e) => e.type === 'email.bounced');
  t.deepEqual(
    bounced.map((e) => e.recipient),
    ['ann@example.net'],
  );
  // The retry (1s schedule here) carries only the greylisted recipient, and the peer takes it.
  t.is(await settled(env.ph, id), 'partially_delivered');
  const [, retry] = await env.peer.waitFor(2);
  t.deepEqual(retry?.rcptTo, ['busy@example.net']);
  t.like(
    recipients(env, id).find((r) => r.email === 'busy@example.net'),
    { status: 'delivered' },
  );
  t.is(messageStatus(env.ph, id), 'partially_delivered');
});

test("nodemailer's refused recipients reach a DATA failure, and never a later transaction's error", async (t) => {
  // Pins the read of nodemailer's envelope in mx-connection.ts (`rejectionsOfDataFailure`).
  const peer = await startSmtpPeer({ size: 64 * 1024 });
  t.teardown(() => peer.close());
  const connection = await MxConnection.open(
    { host: 'mx1.example.net', address: peer.host, port: peer.port },
    { name: 'mta.posthorn.test', tls: 'none', connectTimeoutMs: 3000, commandTimeoutMs: 3000 },
  );
  t.teardown(() => connection.close());
  const message = Buffer.from('Subject: x\r\n\r\nHello\r\n');
  peer.rcptReply('gone@x.test', 550, '5.1.1 User unknown');
  peer.dataReply(554, '5.7.1 Rejected', { times: 1 });

  const failed = await t.throwsAsync<SmtpError>(
    connection.send({ from: 'b@y.test', to: ['ann@x.test', 'gone@x.test'], size: message.length }, message),
  );
  t.is(failed?.response, '554 5.7.1 Rejected');
  t.deepEqual(
    failed?.rejectedErrors?.map((e) => [e.recipient, e.response]),
    [['gone@x.test', '550 5.1.1 User unknown']],
  );
  t.true(await connection.reset());

  // Accepted with one recipient refused: nodemailer keeps that envelope (no RSET after success).
  const sent = await connection.send(
    { from: 'b@y.test', to: ['ann@x.test', 'gone@x.test'], size: message.length },
    message,
  );
  t.deepEqual([...sent.rejected.keys()], ['gone@x.test']);
  // A message refused before MAIL FROM (over the peer's SIZE) gets nothing from that envelope.
  const big = Buffer.alloc(128 * 1024, 'a');
  const tooBig = await t.throwsAsync<SmtpError>(
    connection.send({ from: 'b@y.test', to: ['gone@x.test'], size: big.length }, big),
  );
  t.is(tooBig?.code, 'EMESSAGE');
  t.is(tooBig?.rejectedErrors, undefined);
});
