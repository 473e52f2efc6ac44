import test from 'ava';
import {
  createDomain,
  eventsOf,
  expectSpf,
  publish,
  record,
  SENDING_IP,
  startDomainEnv,
  WITH_TRACKING,
} from './env.js';

test('a domain whose records are all published verifies, reports the DMARC policy and activates the sandbox project', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain);
  t.is((await ph.server.services.projects.get(ph.owner.projectId))?.status, 'sandbox');
  const res = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(res.status, 200);
  t.is(res.body.status, 'verified');
  t.truthy(res.body.verified_at);
  for (const r of res.body.records) t.is(r.status, 'verified', `${r.purpose} ${r.type}: ${r.reason}`);
  t.is(record(res.body, 'dmarc').policy, 'none');
  t.is((await ph.server.services.projects.get(ph.owner.projectId))?.status, 'active');
  t.true(dns.queries(record(domain, 'dkim').host, 'TXT') > 0, 'the check asked the configured DNS server');
  const updated = (await eventsOf(ph, ph.owner.projectId)).filter((e) => e.type === 'domain.updated');
  t.is(updated.length, 1);
  t.like(updated[0]?.data, { status: 'verified', previous_status: 'pending' });
  const get = await ph.request('GET', `/v1/domains/${domain.id}`);
  t.is(get.body.status, 'verified');
});

test('verification fails with a reason for an SPF record that does not authorize this appliance', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain, ['spf']);
  dns.set('example.com', 'TXT', ['v=spf1 ip4:198.51.100.7 include:_spf.other.example -all']);
  dns.set('_spf.other.example', 'TXT', ['v=spf1 ip4:203.0.113.0/24 -all']);
  const res = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(res.body.status, 'failed');
  const spf = record(res.body, 'spf');
  t.is(spf.status, 'failed');
  t.is(spf.reason, `SPF record at example.com does not authorize ${SENDING_IP}.`);
  t.is(record(res.body, 'dkim').status, 'verified');
  t.is((await ph.server.services.projects.get(ph.owner.projectId))?.status, 'sandbox');
});

test('SPF passes through include: and redirect= chains, and fails on a - qualifier or two SPF records', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const cases: Array<[string, string[], Record<string, string>, string | RegExp]> = [
    [
      'a.example',
      ['v=spf1 include:_spf.a.example ~all'],
      { '_spf.a.example': 'v=spf1 ip4:192.0.2.0/24 -all' },
      'verified',
    ],
    [
      'b.example',
      ['v=spf1 redirect=_spf.b.example'],
      { '_spf.b.example': `v=spf1 ip4:${SENDING_IP} -all` },
      'verified',
    ],
    ['c.example', [`v=spf1 -ip4:${SENDING_IP} ip4:192.0.2.0/24 ~all`], {}, /does not authorize/],
    ['d.example', [`v=spf1 ip4:${SENDING_IP} ~all`, 'v=spf1 -all'], {}, /2 SPF records; RFC 7208 §4\.5/],
    ['e.example', ['v=spf1 a:out.e.example ~all'], {}, 'verified'],
    ['f.example', ['google-site-verification=abc'], {}, /No SPF record \(v=spf1\) at f\.example/],
  ];
  dns.set('out.e.example', 'A', [SENDING_IP]);
  for (const [name, spf, extra, expected] of cases) {
    const domain = await createDomain(ph, name);
    publish(dns, domain, ['spf']);
    dns.set(name, 'TXT', spf);
    for (const [host, value] of Object.entries(extra)) dns.set(host, 'TXT', [value]);
    await expectSpf(t, ph, domain.id, expected, name);
  }
});

test('SPF by include: passes when the record includes the configured delivery.spf_include', async (t) => {
  const { ph, dns } = await startDomainEnv(t, {
    delivery: { sending_ips: [], spf_include: 'spf.posthorn.example' },
  });
  dns.set('spf.posthorn.example', 'TXT', ['v=spf1 ip4:192.0.2.0/24 -all']);
  const domain = await createDomain(ph, 'example.com');
  t.is(record(domain, 'spf').value, 'v=spf1 include:spf.posthorn.example ~all');
  publish(dns, domain);
  const ok = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(ok.body.status, 'verified');
  dns.set('example.com', 'TXT', ['v=spf1 mx ~all']);
  const broken = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(
    record(broken.body, 'spf').reason,
    'SPF record at example.com does not include include:spf.posthorn.example.',
  );
});

test('a DKIM record with another key, a revoked key, or none fails with a reason', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain);
  const host = record(domain, 'dkim').host;
  const cases: Array<[string[] | null, RegExp]> = [
    [['v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC'], /does not match this domain's key/],
    [['v=DKIM1; k=rsa; p='], /is revoked/],
    [['some unrelated text'], /is not a DKIM key/],
    [null, new RegExp(`No DKIM record at ${host.replace(/\./g, '\\.')}`)],
  ];
  for (const [value, reason] of cases) {
    if (value === null) dns.clear(host);
    else dns.set(host, 'TXT', value);
    const res = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
    t.is(res.body.status, 'failed');
    t.regex(record(res.body, 'dkim').reason ?? '', reason);
  }
});

test('a missing DMARC record is a warning: the domain still verifies', async (t) => {
  const { ph, dns } = await startDomainEnv(t, WITH_TRACKING);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain, ['dmarc', 'return_path', 'tracking']);
  const res = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(res.body.status, 'verified');
  const dmarc = record(res.body, 'dmarc');
  t.is(dmarc.status, 'missing');
  t.regex(dmarc.reason ?? '', /No DMARC record at _dmarc\.example\.com/);
  t.is(record(res.body, 'return_path', 'MX').status, 'failed');
  t.is(record(res.body, 'tracking').status, 'missing');
  dns.set('_dmarc.example.com', 'TXT', ['v=DMARC1; p=reject; rua=mailto:d@example.com']);
  const again = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.like(record(again.body, 'dmarc'), { status: 'verified', policy: 'reject' });
});

test('a return path MX pointing elsewhere fails with the host it found', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain);
  dns.set('bounces.example.com', 'MX', [{ preference: 10, exchange: 'mx.elsewhere.example' }]);
  const res = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(res.body.status, 'verified', 'the return path is reported, not required');
  t.regex(
    record(res.body, 'return_path', 'MX').reason ?? '',
    /points to mx\.elsewhere\.example, not mx\.posthorn\.example/,
  );
});

test('a temporary DNS failure is reported but never changes the domain status', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain);
  dns.fail('example.com', 'servfail', 'TXT');
  const pending = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(pending.body.status, 'pending');
  t.regex(record(pending.body, 'spf').reason ?? '', /failed temporarily \(ESERVFAIL\)/);
  dns.clear('example.com');
  publish(dns, domain);
  t.is((await ph.request('POST', `/v1/domains/${domain.id}/verify`)).body.status, 'verified');
  dns.fail('example.com', 'servfail', 'TXT');
  t.is((await ph.request('POST', `/v1/domains/${domain.id}/verify`)).body.status, 'verified');
});

test('verification emits domain.updated only when something changed', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain);
  await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  const types = (await eventsOf(ph, ph.owner.projectId)).map((e) => e.type);
  t.deepEqual(types, ['domain.created', 'domain.updated']);
});

test('only a domain becoming verified activates the project; an operator’s later sandbox stands', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain);
  await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is((await ph.server.services.projects.get(ph.owner.projectId))?.status, 'active');
  await ph.server.services.projects.setStatus(ph.owner.projectId, 'sandbox', 'operator');
  await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  await ph.server.services.domains.recheckAll();
  t.is((await ph.server.services.projects.get(ph.owner.projectId))?.status, 'sandbox');
});

test('without sending_ips, a temporary failure resolving delivery.hostname never fails a domain', async (t) => {
  const hostname = 'out.posthorn.example';
  const { ph, dns } = await startDomainEnv(t, { delivery: { sending_ips: [], hostname } });
  dns.set(hostname, 'A', [SENDING_IP]);
  const domain = await createDomain(ph, 'example.com');
  t.is(record(domain, 'spf').value, `v=spf1 a:${hostname} ~all`);
  const pending = await createDomain(ph, 'pending.example.com');
  // Records naming the address itself: checking them needs the addresses of delivery.hostname.
  publish(dns, domain, ['spf']);
  dns.set('example.com', 'TXT', [`v=spf1 ip4:${SENDING_IP} -all`]);
  publish(dns, pending, ['spf', 'dkim']);
  dns.set('pending.example.com', 'TXT', [`v=spf1 ip4:${SENDING_IP} -all`]);
  t.is((await ph.request('POST', `/v1/domains/${domain.id}/verify`)).body.status, 'verified');

  for (const type of [undefined, 'A'] as const) {
    dns.fail(hostname, 'servfail', type);
    const res = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
    t.is(res.body.status, 'verified', `SERVFAIL for ${type ?? 'every type'}`);
    t.regex(
      record(res.body, 'spf').reason ?? '',
      /out\.posthorn\.example .*failed temporarily \(ESERVFAIL\)/,
    );
    await ph.server.services.domains.recheckAll();
    t.is((await ph.request('GET', `/v1/domains/${domain.id}`)).body.status, 'verified');
    const other = await ph.request('POST', `/v1/domains/${pending.id}/verify`);
    t.is(record(other.body, 'spf').status, 'failed');
    t.is(other.body.status, 'failed', 'the missing DKIM record still fails the domain');
    dns.clear(hostname);
    dns.set(hostname, 'A', [SENDING_IP]);
  }
  t.false(
    (await eventsOf(ph, ph.owner.projectId)).some(
      (e) => e.type === 'domain.updated' && e.data.id === domain.id && e.data.status !== 'verified',
    ),
  );
});

test('without sending_ips, a delivery.hostname with no address fails SPF naming the key to set', async (t) => {
  const { ph, dns } = await startDomainEnv(t, {
    delivery: { sending_ips: [], hostname: 'nowhere.posthorn.example' },
  });
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain);
  const res = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(res.body.status, 'failed');
  t.regex(
    record(res.body, 'spf').reason ?? '',
    /^No address \(A or AAAA\) found for delivery\.hostname nowhere\.posthorn\.example .*delivery\.sending_ips/,
  );
});
