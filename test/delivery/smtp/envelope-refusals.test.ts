/**
 * Refusals in the envelope: a MAIL FROM refused (about our return path, RFC 3463 X.1.7 / X.1.8)
 * never suppresses the recipients; a 552 "too many recipients" at RCPT TO is temporary (RFC 5321
 * §4.5.3.1.10); a reply code out of range is fatal (§4.2); with every RCPT TO refused no message
 * is sent (§3.3), and each recipient keeps its own reply.
 */
import test from 'ava';
import { events, messageStatus, mx, rows, send, settled, startDeliveryEnv } from '../env.js';

test('a MAIL FROM refused with an address code bounces the message without suppressing its recipients', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  // Postfix's reject_unverified_sender with a 550 code: the sender's address failed verification.
  env.peer.mailFromReply(550, '5.1.1 Sender address rejected: undeliverable address: User unknown');
  const id = await send(env, { to: ['ann@example.net', 'bob@example.net'] });

  t.is(await settled(env.ph, id), 'bounced');
  const bounces = events(env.ph, id).filter((e) => e.type === 'email.bounced');
  t.is(bounces.length, 2);
  for (const bounce of bounces) {
    t.like(bounce.data.bounce, { type: 'soft', category: 'policy' });
    t.regex(String(bounce.data.bounce.smtp_response), /Sender address rejected/);
  }
  t.deepEqual(rows(env.ph, 'select email from suppressions'), [], 'no recipient is suppressed');
  t.deepEqual(
    rows(env.ph, 'select email from delivery_soft_bounces'),
    [],
    'a refusal of our sender does not count towards repeated_soft_bounce either',
  );
});

test('a 552 "too many recipients" at RCPT TO is retried, not bounced (RFC 5321 §4.5.3.1.10)', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  // The only recipient: no transaction can carry it now, so it waits for the retry (with others
  // accepted, it would go in the next transaction at once: recipient-limit.test.ts).
  env.peer.rcptReply('cat@example.net', 552, '5.5.3 Too many recipients', { times: 1 });
  const id = await send(env, { to: ['cat@example.net'] });

  t.is(await settled(env.ph, id), 'delivered');
  t.is(messageStatus(env.ph, id), 'delivered');
  const delay = events(env.ph, id).find((e) => e.type === 'email.delivery_delayed');
  t.is(delay?.recipient, 'cat@example.net');
  t.false(
    events(env.ph, id).some((e) => e.type === 'email.bounced'),
    'nobody bounced',
  );
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [['cat@example.net']],
  );
});

test('a reply code outside 2xx-5xx at RCPT TO is fatal for that recipient, never retried (RFC 5321 §4.2)', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('odd@example.net', 611, 'Unheard-of status');
  const id = await send(env, { to: ['ann@example.net', 'odd@example.net'] });

  t.is(await settled(env.ph, id), 'partially_delivered');
  const bounce = events(env.ph, id).find((e) => e.type === 'email.bounced');
  t.is(bounce?.recipient, 'odd@example.net');
  t.like(bounce?.data.bounce, { type: 'soft', status: '5.5.0', smtp_response: '611 Unheard-of status' });
  t.false(events(env.ph, id).some((e) => e.type === 'email.delivery_delayed'));
  t.deepEqual(
    rows(env.ph, 'select email from suppressions'),
    [],
    'a broken server says nothing about the address',
  );
});

test('when every RCPT TO is refused no message is sent, and each recipient keeps its own reply', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('gone@example.net', 550, '5.1.1 User unknown');
  env.peer.rcptReply('busy@example.net', 450, '4.2.1 Mailbox busy', { times: 1 });
  const id = await send(env, { to: ['gone@example.net', 'busy@example.net'] });

  t.is(await settled(env.ph, id), 'partially_delivered');
  const firstTry = events(env.ph, id).filter(
    (e) => e.data.bounce?.attempt === 1 || e.data.delay?.attempt === 1,
  );
  t.deepEqual(firstTry.map((e) => [e.type, e.recipient]).sort(), [
    ['email.bounced', 'gone@example.net'],
    ['email.delivery_delayed', 'busy@example.net'],
  ]);
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [['busy@example.net']],
    'the first transaction, with nobody accepted, never reached the end of DATA',
  );
});
