/**
 * RFC 5321 §4.5.3.1.10: a server with a limit on recipients per transaction answers the RCPT TOs
 * past it with 452 (RFC 821 said 552), and the client sends those recipients in another
 * transaction. Posthorn does it at once, on the same connection, instead of deferring them to the
 * next retry; so too for any refusal whose enhanced status code is X.5.3 ("too many recipients",
 * RFC 3463), as some servers answer 451 4.5.3 or 550 5.5.3.
 */
import test from 'ava';
import { overRecipientLimit } from '../../../src/delivery/smtp/recipient-limit.js';
import { events, eventually, mx, recipientStatuses, rows, send, settled, startDeliveryEnv } from '../env.js';

const replies: [string, boolean][] = [
  ['452 4.5.3 Too many recipients', true],
  ['452 Error: too many recipients', true],
  ['552 5.5.3 Too many recipients', true],
  ['552 too many recipients in this transaction', true],
  ['452 4.2.2 Mailbox full', false],
  ['452 Insufficient system storage', false],
  ['552 5.2.2 Mailbox full', false],
  ['550 5.5.3 Too many recipients', true],
  ['451 4.5.3 Too many recipients', true],
  ['451 Too many recipients', false],
  ['451 4.7.1 Too many recipients, slow down', false],
];

for (const [reply, over] of replies) {
  test(`"${reply}" is ${over ? '' : 'not '}a refusal over the recipient limit`, (t) => {
    t.is(overRecipientLimit(reply), over);
  });
}

test('five recipients to a server that takes two per transaction are all delivered in one attempt, in three transactions on one connection', async (t) => {
  const env = await startDeliveryEnv(t, { peer: { maxRecipients: 2 } });
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  const to = ['a', 'b', 'c', 'd', 'e'].map((local) => `${local}@example.net`);
  const id = await send(env, { to });

  t.is(await settled(env.ph, id), 'delivered');
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [to.slice(0, 2), to.slice(2, 4), to.slice(4)],
  );
  t.deepEqual(
    env.peer.messages.map((m) => m.connection),
    [1, 1, 1],
  );
  const types = events(env.ph, id).map((e) => e.type);
  t.is(types.filter((type) => type === 'email.delivered').length, 5);
  t.false(types.includes('email.delivery_delayed'), 'no recipient waited for a retry');
  t.deepEqual(rows(env.ph, 'select attempts from delivery_jobs where message_id = ?', id), [{ attempts: 1 }]);
});

test('recipients refused with 552 5.5.3 "too many recipients" go in the next transaction too', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  env.peer
    .rcptReply('c@example.net', 552, '5.5.3 Too many recipients', { times: 1 })
    .rcptReply('d@example.net', 552, '5.5.3 Too many recipients', { times: 1 })
    .rcptReply('e@example.net', 550, '5.1.1 User unknown');
  const to = ['a', 'b', 'c', 'd', 'e'].map((local) => `${local}@example.net`);
  const id = await send(env, { to });

  t.is(await settled(env.ph, id), 'partially_delivered');
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [
      ['a@example.net', 'b@example.net'],
      ['c@example.net', 'd@example.net'],
    ],
  );
  t.deepEqual(recipientStatuses(env.ph, id), {
    'a@example.net': 'delivered',
    'b@example.net': 'delivered',
    'c@example.net': 'delivered',
    'd@example.net': 'delivered',
    'e@example.net': 'bounced',
  });
  t.false(
    events(env.ph, id).some((e) => e.type === 'email.delivery_delayed'),
    'no recipient waited for a retry',
  );
});

test('recipients refused with 451 4.5.3 past the limit go in the next transaction, on the same connection', async (t) => {
  const env = await startDeliveryEnv(t, {
    peer: { maxRecipients: 2, overLimitReply: { code: 451, text: '4.5.3 Too many recipients' } },
  });
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  const to = ['a', 'b', 'c', 'd', 'e'].map((local) => `${local}@example.net`);
  const id = await send(env, { to });

  t.is(await settled(env.ph, id), 'delivered');
  t.deepEqual(
    env.peer.messages.map((m) => [m.connection, m.rcptTo, m.rejectedRcptTo]),
    [
      [1, to.slice(0, 2), to.slice(2)],
      [1, to.slice(2, 4), to.slice(4)],
      [1, to.slice(4), []],
    ],
  );
  t.false(
    events(env.ph, id).some((e) => e.type === 'email.delivery_delayed'),
    'no recipient waited for a retry',
  );
  t.deepEqual(rows(env.ph, 'select attempts from delivery_jobs where message_id = ?', id), [{ attempts: 1 }]);
});

test('a one-recipient message refused with 550 5.5.3 is deferred after one RCPT TO (no follow-up), and delivered at its retry', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('a@example.net', 550, '5.5.3 Too many recipients', { times: 1 });
  const id = await send(env, { to: ['a@example.net'] });

  await eventually('the deferral', () => events(env.ph, id).some((e) => e.type === 'email.delivery_delayed'));
  t.is(env.peer.rcptCommands, 1, 'no follow-up in the same attempt: the server took nobody');
  const delayed = events(env.ph, id).find((e) => e.type === 'email.delivery_delayed');
  t.like(delayed?.data.delay, { category: 'rate_limited', status: '4.5.3' });
  t.regex(String(delayed?.data.delay.smtp_response), /^550 5\.5\.3 Too many recipients/);
  t.is(await settled(env.ph, id), 'delivered');
  t.false(
    events(env.ph, id).some((e) => e.type === 'email.bounced'),
    'too many recipients is never a bounce',
  );
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [['a@example.net']],
  );
});

test('a recipient refused with 550 5.5.3 again in its follow-up gets one follow-up, then is deferred to its retry', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('b@example.net', 550, '5.5.3 Too many recipients', { times: 2 });
  const id = await send(env, { to: ['a@example.net', 'b@example.net'] });

  t.is(await settled(env.ph, id), 'delivered');
  t.deepEqual(recipientStatuses(env.ph, id), { 'a@example.net': 'delivered', 'b@example.net': 'delivered' });
  t.is(env.peer.rcptCommands, 4, 'a and b, then b alone once; at its retry, b');
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [['a@example.net'], ['b@example.net']],
  );
  t.is(events(env.ph, id).filter((e) => e.type === 'email.delivery_delayed').length, 1);
});

test("follow-up transactions wait for the lane's rate like any other message", async (t) => {
  const env = await startDeliveryEnv(t, {
    peer: { maxRecipients: 1 },
    config: { delivery: { lanes: [{ name: 'default', rate_per_second: 1 } as never] } },
  });
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  const to = ['a', 'b', 'c'].map((local) => `${local}@example.net`);
  const id = await send(env, { to });

  t.is(await settled(env.ph, id), 'delivered');
  // Three messages at one a second (a burst of one): the third starts two seconds after the first.
  // Timed at the peer's MAIL FROMs, so a slow poll in this process cannot shorten the gap.
  const [first, , third] = env.peer.messages.map((m) => m.mailFromAt);
  const gap = (third ?? 0) - (first ?? 0);
  t.true(gap >= 1500, `the third transaction started ${gap} ms after the first`);
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [[to[0]], [to[1]], [to[2]]],
  );
});
