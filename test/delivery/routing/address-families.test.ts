/**
 * An MX reachable only over an address family this host cannot send from ends in a clear outcome
 * within seconds, never a hang: each attempt is deferred at once with a reason naming the family
 * and `delivery.source_ips`, and once `delivery.max_age` has passed the recipient bounces with that
 * reason.
 */
import test from 'ava';
import { events, eventually, send, settled, startDeliveryEnv } from '../env.js';

test('IPv4-only source_ips and an IPv6-only MX: deferred at once with the reason, then bounced at max_age with it', async (t) => {
  const env = await startDeliveryEnv(t, {
    peer: { host: '::1' },
    config: { delivery: { source_ips: ['127.0.0.1'], retry_schedule: ['500ms'], max_age: '3s' } },
  });
  env.dns.set('example.net', 'MX', [{ preference: 10, exchange: 'mx6.example.net' }]);
  env.dns.set('mx6.example.net', 'AAAA', ['::1']);
  const started = Date.now();
  const id = await send(env, { to: ['ann@example.net'] });
  const delayed = await eventually(
    'the first deferral',
    () => events(env.ph, id).find((e) => e.type === 'email.delivery_delayed'),
    20_000,
  );
  // Nothing to wait for: not even the 3 s connect_timeout (a loaded host takes its time, though).
  t.true(Date.now() - started < 10_000, 'the first attempt ends at once');
  t.regex(
    String(delayed.data.delay.smtp_response),
    /no delivery\.source_ips address is IPv6, so ::1 cannot be reached/,
  );
  t.is(await settled(env.ph, id, 30_000), 'bounced');
  const bounced = events(env.ph, id).find((e) => e.type === 'email.bounced');
  t.regex(JSON.stringify(bounced?.data.bounce), /no delivery\.source_ips address is IPv6/);
  t.true(Date.now() - started < 30_000, `settled in ${Date.now() - started} ms`);
  t.is(env.peer.connections, 0, 'nothing reached the MX');
});
