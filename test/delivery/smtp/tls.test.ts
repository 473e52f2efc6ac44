import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { peerCertificatePem } from '../../helpers/smtp-peer.js';
import { events, eventually, mx, rows, send, settled, startDeliveryEnv } from '../env.js';
import { policyHost } from '../mta-sts-host.js';

test('STARTTLS is used whenever the MX offers it (its self-signed certificate is fine)', async (t) => {
  const env = await startDeliveryEnv(t, { peer: { starttls: true } });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const id = await send(env, { to: ['ann@example.net'] });
  const [received] = await env.peer.waitFor(1);
  t.true(received?.secure);
  t.is(await settled(env.ph, id), 'delivered');
  t.is(events(env.ph, id).find((e) => e.type === 'email.delivered')?.data.delivery.tls, true);
});

test('a lane that requires TLS defers rather than send in plaintext', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: { delivery: { lanes: [{ name: 'default', tls: 'require' } as never] } },
  });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const id = await send(env, { to: ['ann@example.net'] });
  const delayed = await eventually('the deferral', () =>
    events(env.ph, id).find((e) => e.type === 'email.delivery_delayed'),
  );
  t.is(delayed.data.delay.category, 'tls');
  t.is(env.peer.messages.length, 0, 'nothing was sent without TLS');
});

test('an enforced MTA-STS policy is fetched over HTTPS, cached, and limits delivery to verified TLS on its MX hosts', async (t) => {
  const host = await policyHost(
    t,
    'sts.example',
    () => 'version: STSv1\nmode: enforce\nmx: localhost\nmax_age: 86400\n',
  );
  const caFile = path.join(host.dir, 'ca.pem');
  writeFileSync(caFile, `${host.cert}\n${await peerCertificatePem()}`);
  const env = await startDeliveryEnv(t, {
    peer: { starttls: true },
    config: { delivery: { mta_sts_port: host.port, tls_ca_file: caFile } },
  });
  env.dns.set('_mta-sts.sts.example', 'TXT', ['v=STSv1; id=20260101T000000;']);
  env.dns.set('mta-sts.sts.example', 'A', ['127.0.0.1']);
  // The peer's certificate is valid for "localhost" only.
  mx(env.dns, 'sts.example', [{ host: 'localhost', ip: '127.0.0.1' }]);

  const id = await send(env, { to: ['ann@sts.example'] });
  t.is(await settled(env.ph, id), 'delivered');
  t.true(env.peer.messages[0]?.secure);
  t.deepEqual(host.requests, ['mta-sts.sts.example/.well-known/mta-sts.txt']);
  const [cached] = rows(env.ph, 'select domain, policy_id, mode, mx from mta_sts_policies');
  t.like(cached, {
    domain: 'sts.example',
    policy_id: '20260101T000000',
    mode: 'enforce',
    mx: '["localhost"]',
  });

  // Same policy id: the cached policy applies without another fetch.
  const again = await send(env, { to: ['bob@sts.example'] });
  t.is(await settled(env.ph, again), 'delivered');
  t.is(host.requests.length, 1);
});

test('under an enforced MTA-STS policy a certificate that does not match the MX name is refused', async (t) => {
  const host = await policyHost(
    t,
    'sts2.example',
    () => 'version: STSv1\nmode: enforce\nmx: mx.sts2.example\nmax_age: 600\n',
  );
  const caFile = path.join(host.dir, 'ca.pem');
  writeFileSync(caFile, `${host.cert}\n${await peerCertificatePem()}`);
  const env = await startDeliveryEnv(t, {
    peer: { starttls: true },
    config: { delivery: { mta_sts_port: host.port, tls_ca_file: caFile } },
  });
  env.dns.set('_mta-sts.sts2.example', 'TXT', ['v=STSv1; id=1;']);
  env.dns.set('mta-sts.sts2.example', 'A', ['127.0.0.1']);
  mx(env.dns, 'sts2.example', [{ host: 'mx.sts2.example', ip: '127.0.0.1' }]);
  const id = await send(env, { to: ['ann@sts2.example'] });
  const delayed = await eventually('the deferral', () =>
    events(env.ph, id).find((e) => e.type === 'email.delivery_delayed'),
  );
  t.is(delayed.data.delay.category, 'tls');
  t.is(env.peer.messages.length, 0, 'no plaintext fallback under an enforced policy');
});

test('under an enforced MTA-STS policy that no MX host matches, nothing is sent and the message waits', async (t) => {
  const host = await policyHost(
    t,
    'sts3.example',
    () => 'version: STSv1\nmode: enforce\nmx: *.elsewhere.example\nmax_age: 600\n',
  );
  const caFile = path.join(host.dir, 'ca.pem');
  writeFileSync(caFile, host.cert);
  const env = await startDeliveryEnv(t, {
    config: { delivery: { mta_sts_port: host.port, tls_ca_file: caFile } },
  });
  env.dns.set('_mta-sts.sts3.example', 'TXT', ['v=STSv1; id=1;']);
  env.dns.set('mta-sts.sts3.example', 'A', ['127.0.0.1']);
  mx(env.dns, 'sts3.example', [{ host: 'mx.sts3.example', ip: '127.0.0.1' }]);
  const id = await send(env, { to: ['ann@sts3.example'] });
  const delayed = await eventually('the deferral', () =>
    events(env.ph, id).find((e) => e.type === 'email.delivery_delayed'),
  );
  t.regex(String(delayed.data.delay.smtp_response), /MTA-STS/);
  t.is(env.peer.connections, 0);
});

test('a policy in testing mode only reports: mail to an MX it does not list is delivered as usual', async (t) => {
  const host = await policyHost(
    t,
    'sts4.example',
    () => 'version: STSv1\nmode: testing\nmx: *.elsewhere.example\nmax_age: 600\n',
  );
  const caFile = path.join(host.dir, 'ca.pem');
  writeFileSync(caFile, host.cert);
  const env = await startDeliveryEnv(t, {
    peer: { starttls: true },
    config: { delivery: { mta_sts_port: host.port, tls_ca_file: caFile } },
  });
  env.dns.set('_mta-sts.sts4.example', 'TXT', ['v=STSv1; id=1;']);
  env.dns.set('mta-sts.sts4.example', 'A', ['127.0.0.1']);
  mx(env.dns, 'sts4.example', [{ host: 'mx.sts4.example', ip: '127.0.0.1' }]);
  const id = await send(env, { to: ['ann@sts4.example'] });
  t.is(await settled(env.ph, id), 'delivered');
  t.deepEqual(host.requests, ['mta-sts.sts4.example/.well-known/mta-sts.txt'], 'the policy was fetched');
  t.true(env.peer.messages[0]?.secure, 'over the TLS the lane uses anyway, certificate unchecked');
});
