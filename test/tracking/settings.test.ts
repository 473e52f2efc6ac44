import test from 'ava';
import { createDomain, startDomainEnv } from '../domains/env.js';

const PUBLIC = 'https://mail.posthorn.example';

test('GET /v1/tracking shows the config defaults until the project sets its own', async (t) => {
  const { ph } = await startDomainEnv(t, {
    server: { public_url: PUBLIC },
    tracking: { opens_enabled: true, clicks_enabled: false, retention_days: 45 },
  });
  const res = await ph.request('GET', '/v1/tracking');
  t.is(res.status, 200);
  t.deepEqual(res.body, {
    opens_enabled: true,
    clicks_enabled: false,
    retention_days: 45,
    custom_domain: null,
    tracking_domain: 'mail.posthorn.example',
    dns: { status: 'none', target: 'mail.posthorn.example', reason: null, checked_at: null },
    updated_at: null,
  });
});

test('PUT replaces the settings; a custom domain with a CNAME to the public host is verified and used', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { server: { public_url: PUBLIC } });
  await createDomain(ph, 'acme.test');
  dns.set('links.acme.test', 'CNAME', ['mail.posthorn.example']);
  const res = await ph.request('PUT', '/v1/tracking', {
    body: { opens_enabled: true, clicks_enabled: true, retention_days: 7, custom_domain: 'Links.Acme.Test.' },
  });
  t.is(res.status, 200, res.text);
  t.like(res.body, {
    opens_enabled: true,
    clicks_enabled: true,
    retention_days: 7,
    custom_domain: 'links.acme.test',
    tracking_domain: 'links.acme.test',
    dns: { status: 'verified', target: 'mail.posthorn.example', reason: null },
  });
  t.false(Number.isNaN(Date.parse(res.body.dns.checked_at)));
  t.deepEqual((await ph.request('GET', '/v1/tracking')).body, res.body);
  // Leaving the domain out removes it.
  const cleared = await ph.request('PUT', '/v1/tracking', {
    body: { opens_enabled: false, clicks_enabled: false, retention_days: 365 },
  });
  t.like(cleared.body, {
    custom_domain: null,
    tracking_domain: 'mail.posthorn.example',
    dns: { status: 'none' },
  });
});

test("a custom domain whose A record is one of the public host's addresses is verified; one pointing elsewhere fails and is not used", async (t) => {
  const { ph, dns } = await startDomainEnv(t, { server: { public_url: PUBLIC } });
  await createDomain(ph, 'acme.test');
  dns.set('mail.posthorn.example', 'A', ['192.0.2.80']);
  dns.set('t.acme.test', 'A', ['192.0.2.80']);
  dns.set('u.acme.test', 'A', ['198.51.100.9']);
  const body = { opens_enabled: true, clicks_enabled: true, retention_days: 30 };
  const ok = await ph.request('PUT', '/v1/tracking', { body: { ...body, custom_domain: 't.acme.test' } });
  t.like(ok.body, { tracking_domain: 't.acme.test', dns: { status: 'verified' } });
  const wrong = await ph.request('PUT', '/v1/tracking', { body: { ...body, custom_domain: 'u.acme.test' } });
  t.is(wrong.status, 200);
  t.like(wrong.body, {
    custom_domain: 'u.acme.test',
    tracking_domain: 'mail.posthorn.example',
    dns: { status: 'failed' },
  });
  t.regex(wrong.body.dns.reason, /u\.acme\.test points at 198\.51\.100\.9, not at mail\.posthorn\.example/);
  const missing = await ph.request('PUT', '/v1/tracking', {
    body: { ...body, custom_domain: 'none.acme.test' },
  });
  t.like(missing.body, { dns: { status: 'failed' } });
  t.regex(missing.body.dns.reason, /has no CNAME, A or AAAA record/);
});

test('the template check reports the custom domain and its DNS as tracking_domain and tracking_dns_ok', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { server: { public_url: PUBLIC } });
  await createDomain(ph, 'acme.test');
  dns.set('links.acme.test', 'CNAME', ['mail.posthorn.example']);
  await ph.request('PUT', '/v1/tracking', {
    body: { opens_enabled: true, clicks_enabled: true, retention_days: 30, custom_domain: 'links.acme.test' },
  });
  const tpl = (
    await ph.request('POST', '/v1/templates', {
      body: {
        name: 'Hi',
        subject: 'Hi',
        html_body: '<p><a href="https://acme.test/">Hi</a></p>',
        variables: [],
      },
    })
  ).body;
  const good = await ph.request('POST', `/v1/templates/${tpl.id}/check`);
  t.like(good.body, { tracking_domain: 'links.acme.test', tracking_dns_ok: true });
  dns.set('links.acme.test', 'CNAME', ['elsewhere.example']);
  dns.set('elsewhere.example', 'A', ['198.51.100.1']);
  const bad = await ph.request('POST', `/v1/templates/${tpl.id}/check`);
  t.like(bad.body, { tracking_domain: 'links.acme.test', tracking_dns_ok: false });
  t.true(bad.body.issues.some((i: { code: string }) => i.code === 'tracking_dns_failed'));
  // The failed check is what the settings show now, and mail stops using the domain.
  t.like((await ph.request('GET', '/v1/tracking')).body, {
    tracking_domain: 'mail.posthorn.example',
    dns: { status: 'failed' },
  });
});

test('bad settings are refused with a 400 naming the field, and nothing changes', async (t) => {
  const { ph } = await startDomainEnv(t, { server: { public_url: PUBLIC } });
  await createDomain(ph, 'acme.test');
  const other = await ph.bootstrap('other@example.test');
  await ph.request('POST', '/v1/domains', { body: { name: 'other.test' }, key: other.apiKey });
  const body = { opens_enabled: true, clicks_enabled: true, retention_days: 30 };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...body, retention_days: 0 }, 'retention_days'],
    [{ ...body, retention_days: 366 }, 'retention_days'],
    [{ ...body, retention_days: 1.5 }, 'retention_days'],
    [{ opens_enabled: true, retention_days: 30 }, 'clicks_enabled'],
    [{ ...body, opens_enabled: 'yes' }, 'opens_enabled'],
    [{ ...body, custom_domain: 'links.other.test' }, 'custom_domain'],
    [{ ...body, custom_domain: 'acme.test' }, 'custom_domain'],
    [{ ...body, custom_domain: 'links.evilacme.test' }, 'custom_domain'],
    [{ ...body, custom_domain: '192.0.2.1' }, 'custom_domain'],
    [{ ...body, custom_domain: '' }, 'custom_domain'],
    [{ ...body, extra: 1 }, 'extra'],
  ];
  for (const [sent, field] of cases) {
    const res = await ph.request('PUT', '/v1/tracking', { body: sent });
    t.is(res.status, 400, JSON.stringify(sent));
    t.true(
      (res.body.details ?? []).some(
        (d: { path: string }) => d.path === field || d.path === `body.${field}`,
      ) || res.body.error.includes(field),
      `${JSON.stringify(sent)} → ${res.text}`,
    );
  }
  t.like((await ph.request('GET', '/v1/tracking')).body, { updated_at: null });
});

test('the tracking scopes guard the settings', async (t) => {
  const { ph } = await startDomainEnv(t);
  const reader = await ph.createKey(ph.owner.projectId, ['tracking:read']);
  t.is((await ph.request('GET', '/v1/tracking', { key: reader })).status, 200);
  const put = await ph.request('PUT', '/v1/tracking', {
    key: reader,
    body: { opens_enabled: true, clicks_enabled: true, retention_days: 30 },
  });
  t.is(put.status, 403);
  t.regex(put.body.error, /tracking:write/);
});
