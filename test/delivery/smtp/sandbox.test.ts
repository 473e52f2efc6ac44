import test from 'ava';
import {
  events,
  eventually,
  messageStatus,
  recipientStatuses,
  send,
  settled,
  startDeliveryEnv,
} from '../env.js';

test('ph_test_ sends are accepted by the built-in sink without opening a connection', async (t) => {
  const env = await startDeliveryEnv(t);
  const key = await env.ph.createKey(env.ph.owner.projectId, ['emails:send'], 'test');
  // No MX is published for example.net: a live send could not even be routed.
  const id = await send(env, { to: ['ann@example.net'] }, key);
  t.is(await settled(env.ph, id), 'delivered');
  const delivered = events(env.ph, id).find((e) => e.type === 'email.delivered');
  t.is(delivered?.recipient, 'ann@example.net');
  t.is(env.peer.connections, 0);
});

test('the reserved sandbox recipients bounce, complain and delay as real ones would', async (t) => {
  const env = await startDeliveryEnv(t);
  const key = await env.ph.createKey(env.ph.owner.projectId, ['emails:send'], 'test');
  const id = await send(
    env,
    { to: ['bounce@posthorn.test', 'complaint@posthorn.test', 'delay@posthorn.test'] },
    key,
  );

  await eventually('the delay', () => events(env.ph, id).some((e) => e.type === 'email.delivery_delayed'));
  t.is(messageStatus(env.ph, id), 'deferred');
  t.is(await settled(env.ph, id), 'partially_delivered');
  t.deepEqual(recipientStatuses(env.ph, id), {
    'bounce@posthorn.test': 'bounced',
    'complaint@posthorn.test': 'complained',
    'delay@posthorn.test': 'delivered',
  });
  const kinds = events(env.ph, id)
    .filter((e) => e.type !== 'email.sent')
    .map((e) => `${e.type} ${e.recipient}`);
  t.deepEqual(kinds, [
    'email.bounced bounce@posthorn.test',
    'email.delivered complaint@posthorn.test',
    'email.complained complaint@posthorn.test',
    'email.delivery_delayed delay@posthorn.test',
    'email.delivered delay@posthorn.test',
  ]);
  const bounced = await env.ph.request('GET', '/v1/suppressions/bounce@posthorn.test');
  t.is(bounced.body.reason, 'hard_bounce');
  const complained = await env.ph.request('GET', '/v1/suppressions/complaint@posthorn.test');
  t.is(complained.body.reason, 'spam_complaint');
  t.is(env.peer.connections, 0);
});
