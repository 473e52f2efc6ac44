/**
 * The DNS resolver against a real DNS server on loopback: MX ordering, RFC 7505 null MX, RFC 5321
 * implicit MX, permanent versus temporary failures, TXT joining and the TTL cache.
 */
import test from 'ava';
import {
  createDnsResolver,
  DnsResolver,
  type DnsResolverOptions,
  isPermanentDnsFailure,
} from '../../src/platform/dns/resolver.js';
import { type DnsTestServer, startDnsServer } from '../helpers/dns-server.js';

let dns: DnsTestServer;

test.before(async () => {
  dns = await startDnsServer();
});

test.after.always(async () => {
  await dns?.stop();
});

function resolver(options: DnsResolverOptions = {}): DnsResolver {
  return new DnsResolver({ servers: [dns.address], timeoutMs: 500, tries: 1, ...options });
}

test('MX hosts come back lowest preference first, lower-cased and without the trailing dot', async (t) => {
  dns.set('sorted.test', 'MX', [
    { preference: 30, exchange: 'c.mx.sorted.test' },
    { preference: 10, exchange: 'A.MX.sorted.test.' },
    { preference: 20, exchange: 'b.mx.sorted.test' },
  ]);
  const result = await resolver().mx('sorted.test');
  t.deepEqual(result, {
    status: 'found',
    implicit: false,
    hosts: [
      { exchange: 'a.mx.sorted.test', preference: 10 },
      { exchange: 'b.mx.sorted.test', preference: 20 },
      { exchange: 'c.mx.sorted.test', preference: 30 },
    ],
  });
});

test('MX hosts of equal preference come back in random order, after the lower preferences (RFC 5321 §5.1)', async (t) => {
  dns.set('spread.test', 'MX', [
    { preference: 5, exchange: 'first.spread.test' },
    { preference: 10, exchange: 'a.spread.test' },
    { preference: 10, exchange: 'b.spread.test' },
    { preference: 10, exchange: 'c.spread.test' },
  ]);
  const dnsResolver = resolver();
  const orders = new Set<string>();
  for (let i = 0; i < 60; i++) {
    const result = await dnsResolver.mx('spread.test');
    if (result.status !== 'found') return t.fail(result.status);
    t.is(result.hosts[0]?.exchange, 'first.spread.test');
    orders.add(result.hosts.map((host) => host.exchange.charAt(0)).join(''));
  }
  // Six orders of the three equal hosts, each seen with probability 1/6 per lookup, from the cache too.
  t.true(orders.size >= 4, `orders seen: ${[...orders].join(', ')}`);
});

test('a null MX is a permanent failure', async (t) => {
  dns.set('nullmx.test', 'MX', [{ preference: 0, exchange: '.' }]);
  dns.set('nullmx.test', 'A', ['192.0.2.1']);
  const result = await resolver().mx('nullmx.test');
  t.deepEqual(result, { status: 'null_mx' });
  t.true(isPermanentDnsFailure(result));
});

test('a domain with an address but no MX records is its own mail host at preference 0', async (t) => {
  dns.set('implicit.test', 'A', ['192.0.2.10']);
  t.deepEqual(await resolver().mx('implicit.test'), {
    status: 'found',
    implicit: true,
    hosts: [{ exchange: 'implicit.test', preference: 0 }],
  });
  dns.set('implicit6.test', 'AAAA', ['2001:db8::1']);
  t.like(await resolver().mx('implicit6.test'), { status: 'found', implicit: true });
});

test('a domain with neither MX nor address records has no mail host, permanently', async (t) => {
  dns.set('txtonly.test', 'TXT', ['v=spf1 -all']);
  const result = await resolver().mx('txtonly.test');
  t.deepEqual(result, { status: 'no_mail_host' });
  t.true(isPermanentDnsFailure(result));
});

test('a domain that does not exist is NXDOMAIN, a permanent failure', async (t) => {
  const result = await resolver().mx('missing.test');
  t.deepEqual(result, { status: 'nxdomain' });
  t.true(isPermanentDnsFailure(result));
  t.deepEqual(await resolver().txt('_dmarc.missing.test'), { status: 'nxdomain' });
});

test('a name that exists without records of the asked type is NODATA, not NXDOMAIN', async (t) => {
  dns.set('host.nodata.test', 'A', ['192.0.2.2']);
  t.deepEqual(await resolver().txt('host.nodata.test'), { status: 'nodata' });
  t.deepEqual(await resolver().a('nodata.test'), { status: 'nodata' });
});

test('SERVFAIL is a temporary failure', async (t) => {
  dns.fail('servfail.test', 'servfail');
  const result = await resolver().mx('servfail.test');
  t.like(result, { status: 'temporary', code: 'ESERVFAIL' });
  t.false(isPermanentDnsFailure(result));
});

test('a server that never answers is a temporary failure after the timeout', async (t) => {
  dns.fail('silent.test', 'timeout');
  const started = Date.now();
  const result = await resolver({ timeoutMs: 200 }).mx('silent.test');
  t.like(result, { status: 'temporary', code: 'ETIMEOUT' });
  t.true(Date.now() - started < 2000);
});

test('an MX lookup that fails temporarily never falls back to the implicit MX', async (t) => {
  dns.set('mxfail.test', 'A', ['192.0.2.3']);
  dns.fail('mxfail.test', 'servfail', 'MX');
  t.like(await resolver().mx('mxfail.test'), { status: 'temporary' });
});

test('no MX and a failing address lookup is temporary, not "no mail host"', async (t) => {
  dns.set('addrfail.test', 'TXT', ['x']);
  dns.fail('addrfail.test', 'servfail', 'AAAA');
  t.like(await resolver().mx('addrfail.test'), { status: 'temporary', code: 'ESERVFAIL' });
});

test('TXT records come back one per record with their character-strings joined', async (t) => {
  const key = `v=DKIM1; k=rsa; p=${'A'.repeat(392)}`;
  dns.set('sel._domainkey.txt.test', 'TXT', [key, ['v=spf1 ', 'ip4:192.0.2.0/24 ', '-all']]);
  const result = await resolver().txt('sel._domainkey.txt.test');
  t.is(result.status, 'found');
  if (result.status !== 'found') return;
  t.deepEqual([...result.records].sort(), [key, 'v=spf1 ip4:192.0.2.0/24 -all'].sort());
});

test('a second lookup within the TTL is answered from the cache', async (t) => {
  dns.set('cached.test', 'MX', [{ preference: 10, exchange: 'mx.cached.test' }]);
  dns.set('cached.test', 'A', ['192.0.2.4']);
  const r = resolver();
  await r.mx('cached.test');
  await r.mx('cached.test');
  await r.a('cached.test');
  await r.a('cached.test');
  t.is(dns.queries('cached.test', 'MX'), 1);
  t.is(dns.queries('cached.test', 'A'), 1);
});

test('a cached address expires with its own TTL, floored at the minimum', async (t) => {
  let now = 1_000_000;
  const r = resolver({ now: () => now, minTtlSeconds: 5 });
  dns.set('ttl.test', 'A', ['192.0.2.5'], { ttl: 30 });
  dns.set('short.ttl.test', 'A', ['192.0.2.6'], { ttl: 1 });
  t.like(await r.a('ttl.test'), { status: 'found', ttl: 30 });
  t.like(await r.a('short.ttl.test'), { status: 'found', ttl: 5 });
  now += 29_000;
  await r.a('ttl.test');
  await r.a('short.ttl.test');
  t.is(dns.queries('ttl.test', 'A'), 1);
  t.is(dns.queries('short.ttl.test', 'A'), 2);
  now += 2000;
  await r.a('ttl.test');
  t.is(dns.queries('ttl.test', 'A'), 2);
});

test('a missing name is remembered briefly, then looked up again', async (t) => {
  let now = 1_000_000;
  const r = resolver({ now: () => now, negativeTtlSeconds: 60 });
  await r.txt('_dmarc.later.test');
  now += 59_000;
  t.deepEqual(await r.txt('_dmarc.later.test'), { status: 'nxdomain' });
  t.is(dns.queries('_dmarc.later.test', 'TXT'), 1);
  dns.set('_dmarc.later.test', 'TXT', ['v=DMARC1; p=none']);
  now += 2000;
  t.like(await r.txt('_dmarc.later.test'), { status: 'found', records: ['v=DMARC1; p=none'] });
});

test('a fresh lookup skips the cache and sees a record published since', async (t) => {
  const r = resolver();
  t.deepEqual(await r.txt('fresh.test'), { status: 'nxdomain' });
  dns.set('fresh.test', 'TXT', ['posthorn-verification=abc']);
  t.deepEqual(await r.txt('fresh.test'), { status: 'nxdomain' });
  t.like(await r.txt('fresh.test', { fresh: true }), {
    status: 'found',
    records: ['posthorn-verification=abc'],
  });
  t.like(await r.txt('fresh.test'), { status: 'found' });
});

test('concurrent lookups of one name share one query', async (t) => {
  dns.set('burst.test', 'MX', [{ preference: 5, exchange: 'mx.burst.test' }]);
  const r = resolver();
  const results = await Promise.all(Array.from({ length: 20 }, () => r.mx('burst.test')));
  t.true(results.every((result) => result.status === 'found'));
  t.is(dns.queries('burst.test', 'MX'), 1);
});

test('a temporary failure is not remembered when the failure TTL is 0', async (t) => {
  dns.fail('flaky.test', 'servfail');
  const r = resolver({ failureTtlSeconds: 0 });
  t.like(await r.mx('flaky.test'), { status: 'temporary' });
  dns.clear('flaky.test');
  dns.set('flaky.test', 'MX', [{ preference: 10, exchange: 'mx.flaky.test' }]);
  t.like(await r.mx('flaky.test'), { status: 'found' });
});

test('the resolver takes its servers and timeout from the [dns] config section', async (t) => {
  dns.set('configured.test', 'A', ['192.0.2.7']);
  const r = createDnsResolver({ dns: { servers: [dns.address], timeout_ms: 500 } });
  t.like(await r.a('configured.test'), { status: 'found', records: ['192.0.2.7'] });
});

test('internationalized domain names are looked up as A-labels', async (t) => {
  dns.set('xn--bcher-kva.test', 'MX', [{ preference: 10, exchange: 'mx.xn--bcher-kva.test' }]);
  t.like(await resolver().mx('Bücher.test.'), { status: 'found' });
});

test('a resolver server that is not an IP address is refused with the config key to fix', (t) => {
  t.throws(() => createDnsResolver({ dns: { servers: ['dns.example:53'], timeout_ms: 500 } }), {
    message: /dns\.servers/,
  });
});
