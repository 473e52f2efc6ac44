/**
 * Webhook hosts resolve through `[dns] servers` when they are set (here a real DNS server on
 * loopback), like every other lookup Posthorn makes; a name those servers do not know is a failed
 * attempt that says why.
 */
import test from 'ava';
import { DnsResolver } from '../../src/platform/dns/resolver.js';
import { resolverLookup } from '../../src/webhooks/host-lookup.js';
import { type DnsTestServer, startDnsServer } from '../helpers/dns-server.js';
import { startPosthorn } from '../helpers/server.js';
import { createEndpoint, deliveries, emit } from './helpers.js';
import { eventually, startReceiver } from './receiver.js';

const open = { allow_http: true, allow_private_targets: true };
let dns: DnsTestServer;

test.before(async () => {
  dns = await startDnsServer();
  // Only the test's DNS server knows these names: the system resolver would fail them.
  dns.set('hooks.posthorn-test.example', 'A', ['127.0.0.1']);
  dns.set('v6only.posthorn-test.example', 'AAAA', ['::1']);
});

test.after.always(async () => {
  await dns.stop();
});

test('a webhook host is resolved through the configured DNS servers', async (t) => {
  const ph = await startPosthorn(t, { webhooks: open, dns: { servers: [dns.address] } });
  const receiver = await startReceiver(t);
  await createEndpoint(ph, `http://hooks.posthorn-test.example:${receiver.port}/hook`);
  const event = await emit(ph, 'email.delivered');
  const [request] = await receiver.waitFor(1);
  t.is(JSON.parse(request!.body).id, event.id);
});

test('a host the configured DNS servers do not know is a failed attempt naming the reason', async (t) => {
  const ph = await startPosthorn(t, { webhooks: open, dns: { servers: [dns.address] } });
  const endpoint = await createEndpoint(ph, 'http://missing.posthorn-test.example:9/hook');
  await emit(ph, 'email.delivered');
  // Newest first: the failed first attempt sits under the retry it queued.
  const failed = await eventually(async () =>
    (await deliveries(ph, endpoint.id)).data.find((attempt) => attempt.status === 'failed'),
  );
  t.is(failed.attempt, 1);
  t.regex(String(failed.error), /could not resolve missing\.posthorn-test\.example: .*no such domain/);
});

test('both address families are asked for, each answer tagged with its family', async (t) => {
  const lookup = resolverLookup(new DnsResolver({ servers: [dns.address] }));
  t.deepEqual(await lookup('v6only.posthorn-test.example'), [{ address: '::1', family: 6 }]);
  t.deepEqual(await lookup('hooks.posthorn-test.example'), [{ address: '127.0.0.1', family: 4 }]);
  await t.throwsAsync(lookup('missing.posthorn-test.example'), { code: 'ENOTFOUND' });
});
