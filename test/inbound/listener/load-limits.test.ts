/**
 * What bounds the listener's and the processor's load: connections in all (`max_clients`), the
 * per-client limit counting an IPv6 /64 as one client, and the bytes of received mail processed
 * at once (`max_processing_bytes`; 60 messages of 20 MB once took 2.7 GB).
 */
import test from 'ava';
import { clientKey } from '../../../src/inbound/listener/client-key.js';
import { createRoute, DOMAIN, startInboundEnv } from '../env.js';
import { openSmtp } from '../smtp-client.js';

const keys: Array<[string, string]> = [
  ['192.0.2.1', '192.0.2.1'],
  ['::ffff:192.0.2.1', '192.0.2.1'],
  ['2001:db8:1:2:a:b:c:d', '2001:db8:1:2::/64'],
  ['2001:0DB8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
  ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
  ['2001:db8::1', '2001:db8:0:0::/64'],
  ['::1', '0:0:0:0::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
];
for (const [ip, key] of keys) {
  test(`connections from ${ip} count as ${key}`, (t) => {
    t.is(clientKey(ip), key);
  });
}

test('connections beyond max_clients are refused with 421, whoever opens them', async (t) => {
  const env = await startInboundEnv(t, { smtp_in: { max_clients: 2, max_connections_per_ip: 10 } });
  const first = await openSmtp(env.smtpPort);
  const second = await openSmtp(env.smtpPort);
  t.teardown(() => {
    first.end();
    second.end();
  });
  t.is(first.greeting.code, 220);
  t.is(second.greeting.code, 220);
  const third = await openSmtp(env.smtpPort);
  t.is(third.greeting.code, 421);
  await third.closed();
  first.end();
  await first.closed();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const again = await openSmtp(env.smtpPort);
  t.is(again.greeting.code, 220, 'a slot is free again once a connection closed');
  again.end();
});

test('received mail is processed within max_processing_bytes at a time; the rest waits its turn', async (t) => {
  const env = await startInboundEnv(t, {
    smtp_in: { max_processing_bytes: 700_000 },
    dns: { timeout_ms: 1000 },
  });
  await createRoute(env.ph, env.domainId, 'support');
  // The sender's SPF record never answers, so each message stays in progress for a while.
  env.dns.fail('slow.example', 'timeout');
  const { inbound } = env.ph.server.services;
  let peak = { messages: 0, bytes: 0 };
  const sampler = setInterval(() => {
    const now = inbound.processing();
    if (now.messages > peak.messages) peak = now;
  }, 5);
  t.teardown(() => clearInterval(sampler));
  for (const n of [1, 2, 3, 4, 5, 6]) {
    await env.send({
      from: 'ann@slow.example',
      to: `support@${DOMAIN}`,
      subject: `Large ${n}`,
      text: 'x'.repeat(300_000),
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const seen = { ...peak };
  await env.settled();
  clearInterval(sampler);
  t.is(seen.messages, 2, `at most two ~310 KB messages in 700 KB (saw ${JSON.stringify(seen)})`);
  t.true(seen.bytes <= 700_000);
  const list = await env.ph.request('GET', '/v1/inbound/emails?limit=10');
  t.is(list.body.data.length, 6, 'every message is processed in the end');
});
