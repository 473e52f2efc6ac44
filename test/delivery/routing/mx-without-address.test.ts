/**
 * A domain whose MX hosts all have no address (each name does not exist, or has neither A nor
 * AAAA records) cannot be routed to until its DNS changes: the recipients bounce at once with
 * 5.4.4, never as hard (the domain's DNS is broken, not the mailbox). A lookup that failed for now
 * proves nothing, so any such failure defers the message as before.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { eventually, events, rows, send, settled, startDeliveryEnv } from '../env.js';
import { policyHost } from '../mta-sts-host.js';

test('a domain whose MX hosts all have no address bounces at once with 5.4.4, without suppressing the address', async (t) => {
  const env = await startDeliveryEnv(t);
  env.dns.set('broken.example', 'MX', [
    { preference: 10, exchange: 'mx1.broken.example' },
    { preference: 20, exchange: 'mx2.broken.example' },
  ]);
  // mx1 does not exist (NXDOMAIN); mx2 exists without an address (NODATA for A and AAAA).
  env.dns.set('mx2.broken.example', 'TXT', ['not a mail host']);
  const id = await send(env, { to: ['ann@broken.example'] });

  t.is(await settled(env.ph, id), 'bounced');
  const types = events(env.ph, id).map((e) => e.type);
  t.deepEqual(types, ['email.sent', 'email.bounced'], 'bounced on the first attempt, never delayed');
  const bounce = events(env.ph, id).find((e) => e.type === 'email.bounced');
  t.like(bounce?.data.bounce, { type: 'soft', status: '5.4.4', category: 'dns_failure' });
  t.regex(String(bounce?.data.bounce.smtp_response), /no usable MX host for broken\.example/);
  t.deepEqual(rows(env.ph, 'select email from suppressions'), [], 'the address is not suppressed');
  t.deepEqual(
    rows(env.ph, 'select email, count from delivery_soft_bounces'),
    [{ email: 'ann@broken.example', count: 1 }],
    'a soft bounce towards repeated_soft_bounce',
  );
  t.is(env.peer.connections, 0);
});

test('an MX host whose address lookup fails for now defers the message, though the others have none', async (t) => {
  const env = await startDeliveryEnv(t);
  env.dns.set('flaky.example', 'MX', [
    { preference: 10, exchange: 'mx1.flaky.example' },
    { preference: 20, exchange: 'mx2.flaky.example' },
  ]);
  env.dns.fail('mx2.flaky.example', 'servfail');
  const id = await send(env, { to: ['ann@flaky.example'] });

  const delayed = await eventually('a deferral', () =>
    events(env.ph, id).find((e) => e.type === 'email.delivery_delayed'),
  );
  t.like(delayed.data.delay, { status: '4.4.3', category: 'dns_failure' });
  t.false(
    events(env.ph, id).some((e) => e.type === 'email.bounced'),
    'nothing bounced',
  );

  // Once the host answers with an address, a retry delivers.
  env.dns.clear('mx2.flaky.example');
  env.dns.set('mx2.flaky.example', 'A', ['127.0.0.1']);
  t.is(await settled(env.ph, id, 20_000), 'delivered');
});

test('an MX host that has an address but cannot be reached defers the message, though the others have none', async (t) => {
  const env = await startDeliveryEnv(t);
  env.dns.set('half.example', 'MX', [
    { preference: 10, exchange: 'mx1.half.example' },
    { preference: 20, exchange: 'mx2.half.example' },
  ]);
  // mx1 does not exist; mx2 has an address where nothing listens (the connection is refused).
  env.dns.set('mx2.half.example', 'A', ['127.0.0.9']);
  const id = await send(env, { to: ['ann@half.example'] });

  const delayed = await eventually('a deferral', () =>
    events(env.ph, id).find((e) => e.type === 'email.delivery_delayed'),
  );
  t.regex(String(delayed.data.delay.status), /^4\./);
  t.false(
    events(env.ph, id).some((e) => e.type === 'email.bounced'),
    'nothing bounced',
  );
});

test('under an enforced MTA-STS policy, MX hosts without an address defer the message: the policy may be fixed', async (t) => {
  const host = await policyHost(
    t,
    'sts4.example',
    () => 'version: STSv1\nmode: enforce\nmx: mx.sts4.example\nmax_age: 600\n',
  );
  const caFile = path.join(host.dir, 'ca.pem');
  writeFileSync(caFile, host.cert);
  const env = await startDeliveryEnv(t, {
    config: { delivery: { mta_sts_port: host.port, tls_ca_file: caFile } },
  });
  env.dns.set('_mta-sts.sts4.example', 'TXT', ['v=STSv1; id=1;']);
  env.dns.set('mta-sts.sts4.example', 'A', ['127.0.0.1']);
  // The one MX host, which the policy names, does not exist (NXDOMAIN).
  env.dns.set('sts4.example', 'MX', [{ preference: 10, exchange: 'mx.sts4.example' }]);
  const id = await send(env, { to: ['ann@sts4.example'] });

  const delayed = await eventually('a deferral', () =>
    events(env.ph, id).find((e) => e.type === 'email.delivery_delayed'),
  );
  t.regex(String(delayed.data.delay.status), /^4\./);
  t.is(host.requests.length, 1, 'the policy was fetched and enforced');
  t.false(
    events(env.ph, id).some((e) => e.type === 'email.bounced'),
    'nothing bounced',
  );
});
