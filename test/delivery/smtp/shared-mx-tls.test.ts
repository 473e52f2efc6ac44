/**
 * Domains that share an MX host but not a TLS policy: one domain's enforced MTA-STS policy (RFC
 * 8461 §4.2, verified certificate) must neither hold back nor be served by the connections of a
 * domain delivered with opportunistic TLS, and the other way round.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { ConfigOverrides } from '../../helpers/server.js';
import { peerCertificatePem } from '../../helpers/smtp-peer.js';
import {
  type DeliveryEnv,
  events,
  eventually,
  messageStatus,
  mx,
  send,
  settled,
  startDeliveryEnv,
} from '../env.js';
import { policyHost } from '../mta-sts-host.js';

/** A Posthorn whose MX peer offers STARTTLS (certificate for "localhost"), and `domain` enforcing `mxName`. */
async function enforcingDomain(
  t: ExecutionContext,
  domain: string,
  mxName: string,
  delivery: NonNullable<ConfigOverrides['delivery']> = {},
): Promise<DeliveryEnv> {
  const host = await policyHost(
    t,
    domain,
    () => `version: STSv1\nmode: enforce\nmx: ${mxName}\nmax_age: 600\n`,
  );
  const caFile = path.join(host.dir, 'ca.pem');
  writeFileSync(caFile, `${host.cert}\n${await peerCertificatePem()}`);
  const env = await startDeliveryEnv(t, {
    peer: { starttls: true },
    config: { delivery: { ...delivery, mta_sts_port: host.port, tls_ca_file: caFile } },
  });
  env.dns.set(`_mta-sts.${domain}`, 'TXT', ['v=STSv1; id=1;']);
  env.dns.set(`mta-sts.${domain}`, 'A', ['127.0.0.1']);
  return env;
}

test("a certificate refused under one domain's enforced policy does not hold back another domain on the same MX", async (t) => {
  // The peer's certificate names "localhost", not mx.shared.example: verification must fail.
  const env = await enforcingDomain(t, 'sts2.example', 'mx.shared.example');
  mx(env.dns, 'sts2.example', [{ host: 'mx.shared.example', ip: '127.0.0.1' }]);
  mx(env.dns, 'plain.example', [{ host: 'mx.shared.example', ip: '127.0.0.1' }]);

  const enforced = await send(env, { to: ['ann@sts2.example'] });
  const delayed = await eventually('the deferral', () =>
    events(env.ph, enforced).find((e) => e.type === 'email.delivery_delayed'),
  );
  t.is(delayed.data.delay.category, 'tls');
  t.regex(String(delayed.data.delay.smtp_response), /altnames/);

  const plain = await send(env, { to: ['bob@plain.example'] });
  t.is(await settled(env.ph, plain), 'delivered');
  t.deepEqual(
    events(env.ph, plain).map((e) => e.type),
    ['email.sent', 'email.delivered'].filter(
      (type) => type !== 'email.sent' || events(env.ph, plain).some((e) => e.type === 'email.sent'),
    ),
    'no deferral borrowed from the other domain',
  );
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [['bob@plain.example']],
  );
  t.true(env.peer.messages[0]?.secure, 'opportunistic TLS still encrypts');
  t.is(
    messageStatus(env.ph, enforced),
    'deferred',
    'the enforcing domain still waits for a valid certificate',
  );
});

test("the enforcing domain's retries and new mail do not renew a block on the other domain", async (t) => {
  const env = await enforcingDomain(t, 'sts2.example', 'mx.shared.example');
  mx(env.dns, 'sts2.example', [{ host: 'mx.shared.example', ip: '127.0.0.1' }]);
  mx(env.dns, 'plain.example', [{ host: 'mx.shared.example', ip: '127.0.0.1' }]);
  const first = await send(env, { to: ['ann@sts2.example'] });
  await eventually('the first deferral', () =>
    events(env.ph, first).some((e) => e.type === 'email.delivery_delayed'),
  );

  // A steady flow of the enforcing domain's mail (and its retries, 1s apart here), interleaved.
  for (let i = 0; i < 3; i++) {
    const enforced = await send(env, { to: [`ann${i}@sts2.example`] });
    const plain = await send(env, { to: [`bob${i}@plain.example`] });
    t.is(await settled(env.ph, plain), 'delivered');
    t.false(events(env.ph, plain).some((e) => e.type === 'email.delivery_delayed'));
    await eventually('the deferral', () =>
      events(env.ph, enforced).some((e) => e.type === 'email.delivery_delayed'),
    );
    t.is(messageStatus(env.ph, enforced), 'deferred');
  }
  t.deepEqual(
    env.peer.messages.flatMap((m) => m.rcptTo),
    ['bob0@plain.example', 'bob1@plain.example', 'bob2@plain.example'],
    'nothing went to the enforcing domain without a verified certificate',
  );
});

test('a job that waited for a connection while the certificate check failed does not hold back the other domain', async (t) => {
  // One connection per MX: the second enforcing job waits for the first one's failed handshake.
  const env = await enforcingDomain(t, 'sts2.example', 'mx.shared.example', {
    lanes: [{ name: 'default', connections_per_mx: 1 } as never],
  });
  mx(env.dns, 'sts2.example', [{ host: 'mx.shared.example', ip: '127.0.0.1' }]);
  mx(env.dns, 'plain.example', [{ host: 'mx.shared.example', ip: '127.0.0.1' }]);
  const enforced = await Promise.all(
    [0, 1, 2, 3, 4, 5].map((i) => send(env, { to: [`ann${i}@sts2.example`] })),
  );
  for (const id of enforced) {
    await eventually('the deferral', () =>
      events(env.ph, id).some((e) => e.type === 'email.delivery_delayed'),
    );
  }

  const plain = await send(env, { to: ['bob@plain.example'] });
  t.is(await settled(env.ph, plain), 'delivered');
  t.false(events(env.ph, plain).some((e) => e.type === 'email.delivery_delayed'));
});

test('a connection opened with opportunistic TLS is not reused for a domain whose policy demands a verified certificate', async (t) => {
  // Here the certificate is valid for the MX name, so both domains are delivered.
  const env = await enforcingDomain(t, 'sts.example', 'localhost');
  mx(env.dns, 'sts.example', [{ host: 'localhost', ip: '127.0.0.1' }]);
  mx(env.dns, 'plain.example', [{ host: 'localhost', ip: '127.0.0.1' }]);

  const first = await send(env, { to: ['bob@plain.example'] });
  t.is(await settled(env.ph, first), 'delivered');
  const second = await send(env, { to: ['ann@sts.example'] });
  t.is(await settled(env.ph, second), 'delivered');
  const third = await send(env, { to: ['cy@plain.example'] });
  t.is(await settled(env.ph, third), 'delivered');

  t.deepEqual(
    env.peer.messages.map((m) => [m.rcptTo[0], m.connection, m.secure]),
    [
      ['bob@plain.example', 1, true],
      // The idle opportunistic connection never had its certificate checked: a new, verified one.
      ['ann@sts.example', 2, true],
      ['cy@plain.example', 1, true],
    ],
  );
});

test('with one connection per MX, an idle connection at another TLS level makes room instead of making a job wait', async (t) => {
  const env = await enforcingDomain(t, 'sts.example', 'localhost', {
    lanes: [{ name: 'default', connections_per_mx: 1 } as never],
    idle_timeout: '60s',
  });
  mx(env.dns, 'sts.example', [{ host: 'localhost', ip: '127.0.0.1' }]);
  mx(env.dns, 'plain.example', [{ host: 'localhost', ip: '127.0.0.1' }]);

  const first = await send(env, { to: ['bob@plain.example'] });
  t.is(await settled(env.ph, first), 'delivered');
  // The opportunistic connection now sits idle (for up to a minute) and holds the MX's only slot.
  const started = Date.now();
  const second = await send(env, { to: ['ann@sts.example'] });
  t.is(await settled(env.ph, second, 30_000), 'delivered');
  t.true(Date.now() - started < 20_000, 'the verified job did not wait for the idle connection to time out');
  t.deepEqual(
    env.peer.messages.map((m) => [m.rcptTo[0], m.connection]),
    [
      ['bob@plain.example', 1],
      ['ann@sts.example', 2],
    ],
  );
});
