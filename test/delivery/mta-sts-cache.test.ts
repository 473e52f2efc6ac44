import test from 'ava';
import { MtaSts } from '../../src/delivery/mta-sts.js';
import type { StoredPolicy } from '../../src/delivery/store.js';
import type { DnsResolver } from '../../src/platform/dns/resolver.js';
import { createLogger } from '../../src/platform/log.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { createDnsResolver } from '../../src/platform/dns/resolver.js';
import { testConfig } from '../helpers/server.js';

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
