import test from 'ava';
import { startDomainRecheck } from '../../src/domains/recheck.js';
import { createLogger } from '../../src/platform/log.js';
import { createDomain, eventsOf, publish, record, startDomainEnv } from './env.js';

test('findVerifiedByName and isVerified answer only for a verified domain of the same project', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const { domains } = ph.server.services;
  const projectId = ph.owner.projectId;
  const domain = await createDomain(ph, 'example.com');
  t.is(await domains.findVerifiedByName(projectId, 'example.com'), undefined);
  t.false(await domains.isVerified(projectId, 'example.com'));
  publish(dns, domain);
  await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.deepEqual(await domains.findVerifiedByName(projectId, 'Example.COM.'), {
    id: domain.id,
    projectId,
    name: 'example.com',
  });
  t.true(await domains.isVerified(projectId, 'example.com'));
  t.true(await domains.isVerifiedById(projectId, domain.id));
  t.false(await domains.isVerified(projectId, 'sub.example.com'), 'subdomains are separate domains');
  t.false(await domains.isVerified(projectId, 'not a domain'));
  const other = await ph.bootstrap();
  t.false(await domains.isVerified(other.projectId, 'example.com'));
  t.false(await domains.isVerifiedById(other.projectId, domain.id));
});

test('bounceHost is the configured bounce subdomain of the sending domain', async (t) => {
  const { ph } = await startDomainEnv(t, { delivery: { bounce_subdomain: 'rp' } });
  t.is(ph.server.services.domains.bounceHost('Example.com.'), 'rp.example.com');
  const domain = await createDomain(ph, 'example.com');
  t.is(record(domain, 'return_path', 'MX').host, 'rp.example.com');
});

test('the re-check marks a verified domain that broke as failed, with a domain.updated event', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  const healthy = await createDomain(ph, 'healthy.example.com');
  publish(dns, domain);
  publish(dns, healthy);
  await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  await ph.request('POST', `/v1/domains/${healthy.id}/verify`);
  dns.clear(record(domain, 'dkim').host);
  const result = await ph.server.services.domains.recheckAll();
  t.deepEqual(result, { checked: 2, failed: 0 });
  const broken = await ph.request('GET', `/v1/domains/${domain.id}`);
  t.is(broken.body.status, 'failed');
  t.regex(record(broken.body, 'dkim').reason ?? '', /No DKIM record/);
  t.is((await ph.request('GET', `/v1/domains/${healthy.id}`)).body.status, 'verified');
  t.false(await ph.server.services.domains.isVerified(ph.owner.projectId, 'example.com'));
  const last = (await eventsOf(ph, ph.owner.projectId)).at(-1);
  t.like(last, {
    type: 'domain.updated',
    data: { id: domain.id, status: 'failed', previous_status: 'verified' },
  });
});

test('the scheduled re-check runs on domains.recheck_cron as a background engine', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { domains: { recheck_cron: '* * * * * *' } });
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain);
  await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  dns.set('example.com', 'TXT', ['v=spf1 -all']);
  const deadline = Date.now() + 5000;
  let status = 'verified';
  while (Date.now() < deadline && status === 'verified') {
    await new Promise((resolve) => setTimeout(resolve, 200));
    status = (await ph.request('GET', `/v1/domains/${domain.id}`)).body.status;
  }
  t.is(status, 'failed');
});

test('stopping the re-check never waits on slow DNS: the run stops and the check in flight is abandoned unsaved', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { dns: { timeout_ms: 2000 } });
  const names = ['a.example', 'b.example', 'c.example'];
  for (const name of names) {
    const domain = await createDomain(ph, name);
    publish(dns, domain, ['spf']);
    dns.set(name, 'TXT', ['v=spf1 include:slow.example -all']);
  }
  dns.fail('slow.example', 'timeout');
  const engine = startDomainRecheck(ph.server.services.domains, '* * * * * *', createLogger('silent'));
  const deadline = Date.now() + 5000;
  while (dns.queries('slow.example', 'TXT') === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.true(dns.queries('slow.example', 'TXT') > 0, 'a re-check is waiting on DNS');
  const started = Date.now();
  await engine.stop();
  t.true(Date.now() - started < 500, `stop() took ${Date.now() - started} ms`);
  const queriesAtStop = dns.log.length;
  // Past the resolver's timeout and its retry: nothing more is asked, nothing is saved.
  await new Promise((resolve) => setTimeout(resolve, 4500));
  t.is(dns.log.length, queriesAtStop, 'the queries in flight were cancelled');
  const checked = ph.server.kernel.store.sqlite
    .prepare('select count(*) as n from domains where last_checked_at is not null')
    .get() as { n: number };
  t.is(checked.n, 0);
});
