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

test('the reserved sandbox recipients bounce, complain and delay as real ones would, every time: they are never suppressed', async (t) => {
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
  // DESIGN.md §4a: the same events as real addresses, but never a suppression, in either list.
  const reader = await env.ph.createKey(env.ph.owner.projectId, ['suppressions:read'], 'test');
  for (const address of ['bounce@posthorn.test', 'complaint@posthorn.test']) {
    t.is((await env.ph.request('GET', `/v1/suppressions/${address}`, { key: reader })).status, 404, address);
    t.is((await env.ph.request('GET', `/v1/suppressions/${address}`)).status, 404, address);
  }
  const again = await send(env, { to: ['bounce@posthorn.test'] }, key);
  t.is(await settled(env.ph, again), 'bounced');
  t.true(events(env.ph, again).some((e) => e.type === 'email.bounced'));
  t.is(env.peer.connections, 0);
});
