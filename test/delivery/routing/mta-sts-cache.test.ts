import test from 'ava';
import { MtaSts } from '../../../src/delivery/routing/mta-sts.js';
import type { StoredPolicy } from '../../../src/delivery/queue/store.js';
import type { DnsResolver } from '../../../src/platform/dns/resolver.js';
import { createLogger } from '../../../src/platform/log.js';
import { startDnsServer } from '../../helpers/dns-server.js';
import { createDnsResolver } from '../../../src/platform/dns/resolver.js';
import { testConfig } from '../../helpers/server.js';

/** The policy table, counting its reads. */
function countingStore(rows: StoredPolicy[] = []) {
  const reads: string[] = [];
  return {
    reads,
    async policy(domain: string) {
      reads.push(domain);
      return rows.find((row) => row.domain === domain);
    },
    async savePolicy(policy: StoredPolicy) {
      rows.push(policy);
    },
  };
}

async function resolver(t: import('ava').ExecutionContext): Promise<DnsResolver> {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const config = testConfig('/nonexistent', { dns: { servers: [dns.address] } });
  return createDnsResolver(config);
}

test('a domain without a policy is looked up in the policy table once, not once per message', async (t) => {
  const store = countingStore();
  const sts = new MtaSts({ dns: await resolver(t), store, log: createLogger('silent'), port: 443 });
  for (let i = 0; i < 20; i++) t.is(await sts.policyFor('plain.example'), null);
  t.deepEqual(store.reads, ['plain.example']);
});

test('a stored policy is read once and then served from memory until it expires', async (t) => {
  const now = Date.now();
  const stored: StoredPolicy = {
    domain: 'kept.example',
    policyId: '1',
    mode: 'enforce',
    mx: ['mx.kept.example'],
    maxAge: 86400,
    fetchedAt: now,
    expiresAt: now + 86_400_000,
  };
  const store = countingStore([stored]);
  const sts = new MtaSts({ dns: await resolver(t), store, log: createLogger('silent'), port: 443 });
  for (let i = 0; i < 5; i++) t.like(await sts.policyFor('kept.example'), { mode: 'enforce', policyId: '1' });
  t.deepEqual(store.reads, ['kept.example']);
});

test('failed policy fetches back off per domain, and the back-off list stays bounded', async (t) => {
  // Every domain publishes a TXT record, and no policy host has an address: each fetch fails.
  const fetches: string[] = [];
  const dns = {
    txt: async () => ({ status: 'found', records: ['v=STSv1; id=20261124'], ttl: 300 }),
    a: async (host: string) => {
      fetches.push(host);
      return { status: 'nxdomain' };
    },
    aaaa: async () => ({ status: 'nxdomain' }),
  } as unknown as DnsResolver;
  const sts = new MtaSts({
    dns,
    store: countingStore(),
    log: createLogger('silent'),
    port: 443,
    memoryDomains: 2,
  });
  const fetched = (domain: string) => fetches.filter((host) => host === `mta-sts.${domain}`).length;

  t.is(await sts.policyFor('one.example'), null);
  t.is(await sts.policyFor('one.example'), null);
  t.is(fetched('one.example'), 1, 'a failed fetch is not retried at once');
  await sts.policyFor('two.example');
  await sts.policyFor('three.example');
  // The list holds two domains: the oldest, one.example, was forgotten and is tried again.
  await sts.policyFor('one.example');
  t.is(fetched('one.example'), 2);
  await sts.policyFor('three.example');
  t.is(fetched('three.example'), 1);
});
