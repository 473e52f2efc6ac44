/**
 * Fetching MTA-STS policies (RFC 8461 §3.3) from a real HTTPS policy host through a real DNS
 * server: only a 200 `text/plain` answer of at most 64 KB counts, redirects are not followed, a
 * policy is kept for its max_age and fetched again when the TXT id changes (§3.1, §5.1). And the
 * MX patterns: `*.example.com` stands for one label only (§4.1).
 */
import test, { type ExecutionContext } from 'ava';
import { allowedHosts, MtaSts, type MtaStsPolicy } from '../../../src/delivery/routing/mta-sts.js';
import type { StoredPolicy } from '../../../src/delivery/queue/store.js';
import { createDnsResolver } from '../../../src/platform/dns/resolver.js';
import { createLogger } from '../../../src/platform/log.js';
import { type DnsTestServer, startDnsServer } from '../../helpers/dns-server.js';
import { testConfig } from '../../helpers/server.js';
import { type PolicyResponse, policyHost } from '../mta-sts-host.js';

const ENFORCE = 'version: STSv1\nmode: enforce\nmx: mx.sts.example\nmax_age: 600\n';

interface World {
  readonly dns: DnsTestServer;
  readonly requests: readonly string[];
  readonly sts: MtaSts;
  /** The clock the MtaSts instance reads. */
  readonly clock: { now: number };
}

/** A policy host for sts.example answering `answer`, its TXT record, and an MtaSts reading both. */
async function world(t: ExecutionContext, answer: (path: string) => string | PolicyResponse): Promise<World> {
  const host = await policyHost(t, 'sts.example', answer);
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  dns.set('_mta-sts.sts.example', 'TXT', ['v=STSv1; id=1;']);
  dns.set('mta-sts.sts.example', 'A', ['127.0.0.1']);
  const rows: StoredPolicy[] = [];
  const store = {
    policy: async (domain: string) => rows.find((row) => row.domain === domain),
    savePolicy: async (policy: StoredPolicy) => {
      rows.splice(0, rows.length, ...rows.filter((row) => row.domain !== policy.domain), policy);
    },
  };
  const config = testConfig('/nonexistent', { dns: { servers: [dns.address] } });
  // No DNS caching, so a changed TXT record is seen at once (the engine caches it up to 5 minutes).
  const resolver = createDnsResolver(config, {
    minTtlSeconds: 0,
    defaultTtlSeconds: 0,
    failureTtlSeconds: 0,
  });
  const clock = { now: Date.now() };
  const sts = new MtaSts({
    dns: resolver,
    store,
    log: createLogger('silent'),
    port: host.port,
    ca: host.cert,
    now: () => clock.now,
  });
  return { dns, requests: host.requests, sts, clock };
}

test('a policy served as 200 text/plain is used', async (t) => {
  const w = await world(t, () => ENFORCE);
  t.like(await w.sts.policyFor('sts.example'), { mode: 'enforce', mx: ['mx.sts.example'], policyId: '1' });
});

test('a redirect is not followed: the domain has no policy (RFC 8461 §3.3)', async (t) => {
  const w = await world(t, (url) =>
    url === '/.well-known/mta-sts.txt'
      ? { status: 301, headers: { location: '/elsewhere.txt' }, body: '' }
      : ENFORCE,
  );
  t.is(await w.sts.policyFor('sts.example'), null);
  t.deepEqual(w.requests, ['mta-sts.sts.example/.well-known/mta-sts.txt']);
});

test('a policy served as anything but text/plain is refused', async (t) => {
  const w = await world(t, () => ({ headers: { 'content-type': 'text/html' }, body: ENFORCE }));
  t.is(await w.sts.policyFor('sts.example'), null);
});

test('a policy with a charset parameter is text/plain all the same', async (t) => {
  const w = await world(t, () => ({
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: ENFORCE,
  }));
  t.like(await w.sts.policyFor('sts.example'), { mode: 'enforce' });
});

test('a policy larger than 64 KB is refused', async (t) => {
  const w = await world(t, () => `${ENFORCE}${'# padding\n'.repeat(7000)}`);
  t.is(await w.sts.policyFor('sts.example'), null);
});

test('a policy is kept for its max_age, fetched again when the TXT id changes, and when it expires', async (t) => {
  let served = ENFORCE;
  const w = await world(t, () => served);
  t.like(await w.sts.policyFor('sts.example'), { policyId: '1', mx: ['mx.sts.example'] });
  served = ENFORCE.replace('mx.sts.example', 'mx2.sts.example');
  t.like(await w.sts.policyFor('sts.example'), { policyId: '1', mx: ['mx.sts.example'] }, 'same id: cached');
  t.is(w.requests.length, 1);

  w.dns.set('_mta-sts.sts.example', 'TXT', ['v=STSv1; id=2;']);
  t.like(await w.sts.policyFor('sts.example'), { policyId: '2', mx: ['mx2.sts.example'] }, 'new id: fetched');
  t.is(w.requests.length, 2);

  served = ENFORCE.replace('mx.sts.example', 'mx3.sts.example');
  w.clock.now += 601_000;
  t.like(await w.sts.policyFor('sts.example'), { mx: ['mx3.sts.example'] }, 'max_age over: fetched');
  t.is(w.requests.length, 3);
});

test('a cached policy outlives a failed refresh and a withdrawn TXT record (RFC 8461 §5.1)', async (t) => {
  let fail = false;
  const w = await world(t, () => (fail ? { status: 500, body: '' } : ENFORCE));
  t.like(await w.sts.policyFor('sts.example'), { policyId: '1', mode: 'enforce' });
  fail = true;
  w.dns.set('_mta-sts.sts.example', 'TXT', ['v=STSv1; id=2;']);
  t.like(await w.sts.policyFor('sts.example'), { policyId: '1', mode: 'enforce' });
  w.dns.set('_mta-sts.sts.example', 'TXT', []);
  t.like(await w.sts.policyFor('sts.example'), { policyId: '1', mode: 'enforce' });
});

test('"*.example.com" in a policy matches one label only (RFC 8461 §4.1)', (t) => {
  const policy: MtaStsPolicy = {
    domain: 'example.com',
    policyId: '1',
    mode: 'enforce',
    mx: ['*.example.com', 'mail.example.org'],
    maxAge: 600,
    fetchedAt: 0,
    expiresAt: 600_000,
  };
  t.deepEqual(
    allowedHosts(policy, [
      'mx1.example.com',
      'a.mx1.example.com',
      'example.com',
      'mail.example.org',
      'x.example.org',
    ]),
    ['mx1.example.com', 'mail.example.org'],
  );
  t.deepEqual(allowedHosts({ ...policy, mode: 'testing' }, ['a.mx1.example.com']), ['a.mx1.example.com']);
});
