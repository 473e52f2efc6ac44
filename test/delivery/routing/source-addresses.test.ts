/**
 * `delivery.source_ips` of one address family: a connection goes only to MX addresses of that
 * family (binding an IPv6 source to reach an IPv4 address fails, and the other way round).
 */
import test from 'ava';
import { events, eventually, messageStatus, send, startDeliveryEnv } from '../env.js';

test('with only an IPv6 source address, a dual-stack MX is reached over IPv6 (old: the IPv4 address failed the bind and the mail was deferred)', async (t) => {
  const env = await startDeliveryEnv(t, {
    peer: { host: '::1' },
    config: { delivery: { source_ips: ['::1'] } },
  });
  env.dns.set('example.net', 'MX', [{ preference: 10, exchange: 'mx1.example.net' }]);
  env.dns.set('mx1.example.net', 'A', ['127.0.0.1']);
  env.dns.set('mx1.example.net', 'AAAA', ['::1']);
  const id = await send(env, { to: ['ann@example.net'] });
  const [received] = await env.peer.waitFor(1);
  t.deepEqual(received?.rcptTo, ['ann@example.net']);
  await eventually('delivered', () => messageStatus(env.ph, id) === 'delivered');
});

test('an MX with only IPv6 addresses and only IPv4 sources is deferred with a reason that says so', async (t) => {
  const env = await startDeliveryEnv(t, {
    peer: { host: '::1' },
    config: { delivery: { source_ips: ['127.0.0.1'] } },
  });
  env.dns.set('example.net', 'MX', [{ preference: 10, exchange: 'mx1.example.net' }]);
  env.dns.set('mx1.example.net', 'AAAA', ['::1']);
  const id = await send(env, { to: ['ann@example.net'] });
  const delayed = await eventually('the deferral', () =>
    events(env.ph, id).find((e) => e.type === 'email.delivery_delayed'),
  );
  t.regex(
    String(delayed.data.delay.smtp_response),
    /no delivery\.source_ips address is IPv6, so ::1 cannot be reached/,
  );
  t.is(env.peer.messages.length, 0);
});
