import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { ISSUE_CODES } from '../../src/templates/check/issues.js';
import { createDomain, publish, startDomainEnv } from '../domains/env.js';

const clean = {
  name: 'Receipt',
  subject: 'Your receipt {{number}}',
  html_body:
    '<table><tr><td><img src="https://cdn.posthorn.dev/logo.png" alt="Posthorn"><a href="https://posthorn.dev/r/{{number}}">View</a></td></tr></table>',
  text_body: 'Receipt {{number}}: https://posthorn.dev/r/{{number}}',
  variables: ['number'],
};

test('the check of a clean template with a verified domain passes with the spec §2.7 shape', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { tracking: { domain: 'links.posthorn.example' } });
  dns.set('links.posthorn.example', 'A', ['192.0.2.20']);
  const domain = await createDomain(ph, 'posthorn.dev');
  publish(dns, domain);
  await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  const tpl = (await ph.request('POST', '/v1/templates', { body: clean })).body;
  const res = await ph.request('POST', `/v1/templates/${tpl.id}/check`);
  t.is(res.status, 200);
  t.like(res.body, {
    template_id: tpl.id,
    version: 1,
    passed: true,
    html_bytes: Buffer.byteLength(clean.html_body),
    link_count: 2,
    image_count: 1,
    issues: [],
    tracking_domain: 'links.posthorn.example',
    tracking_dns_ok: true,
  });
  t.false(Number.isNaN(Date.parse(res.body.checked_at)));
  t.deepEqual(res.body.domains, [
    {
      name: 'posthorn.dev',
      status: 'verified',
      spf_status: 'verified',
      dkim_status: 'verified',
      dmarc_status: 'verified',
    },
  ]);
});

test('the check reports content errors, domain warnings and broken tracking DNS; passed is false on any error', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { tracking: { domain: 'links.posthorn.example' } });
  const domain = await createDomain(ph, 'posthorn.dev');
  publish(dns, domain, ['dmarc']);
  await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  await createDomain(ph, 'unverified.posthorn.dev');
  const tpl = (
    await ph.request('POST', '/v1/templates', {
      body: {
        name: 'Broken',
        subject: 'Hi {{name}}',
        html_body:
          '<p>{{name}} <a href="#">click</a><img src="https://cdn.posthorn.dev/x.png"><script>x()</script></p>',
        variables: ['name'],
      },
    })
  ).body;
  const res = await ph.request('POST', `/v1/templates/${tpl.id}/check`);
  t.is(res.status, 200);
  t.false(res.body.passed);
  t.false(res.body.tracking_dns_ok);
  const found = res.body.issues.map((i: { code: string; severity: string; target?: string }) => [
    i.code,
    i.severity,
    i.target,
  ]);
  t.deepEqual(found, [
    ['link_placeholder', 'error', '#'],
    ['image_missing_alt', 'warning', 'https://cdn.posthorn.dev/x.png'],
    ['compat_script', 'error', '<script>'],
    ['missing_text_part', 'info', undefined],
    ['domain_dmarc_missing', 'warning', 'posthorn.dev'],
    ['domain_not_verified', 'warning', 'unverified.posthorn.dev'],
    ['tracking_dns_failed', 'warning', 'links.posthorn.example'],
  ]);
  for (const issue of res.body.issues) t.true(issue.message.length > 10);
});

test('a template with only warnings passes; with no domain the check warns that only the sandbox can send', async (t) => {
  const { ph } = await startDomainEnv(t);
  const tpl = (
    await ph.request('POST', '/v1/templates', {
      body: { ...clean, html_body: clean.html_body.replace('https://posthorn', 'http://posthorn') },
    })
  ).body;
  const res = await ph.request('POST', `/v1/templates/${tpl.id}/check`);
  t.true(res.body.passed);
  t.deepEqual(
    res.body.issues.map((i: { code: string }) => i.code),
    ['link_insecure', 'no_verified_domain'],
  );
  t.deepEqual(res.body.domains, []);
  t.is(res.body.tracking_domain, '127.0.0.1', 'without tracking.domain the public URL host is used');
  t.true(res.body.tracking_dns_ok);
});

test('?version= checks that version instead of the current draft; an unknown version is 404', async (t) => {
  const { ph } = await startDomainEnv(t);
  const tpl = (await ph.request('POST', '/v1/templates', { body: clean })).body;
  await ph.request('POST', `/v1/templates/${tpl.id}/publish`);
  await ph.request('PUT', `/v1/templates/${tpl.id}`, {
    body: { ...clean, html_body: `${clean.html_body}<form></form>` },
  });
  const draft = await ph.request('POST', `/v1/templates/${tpl.id}/check`);
  t.is(draft.body.version, 2);
  t.true(draft.body.issues.some((i: { code: string }) => i.code === 'compat_form'));
  const published = await ph.request('POST', `/v1/templates/${tpl.id}/check?version=1`);
  t.is(published.body.version, 1);
  t.false(published.body.issues.some((i: { code: string }) => i.code === 'compat_form'));
  t.is((await ph.request('POST', `/v1/templates/${tpl.id}/check?version=9`)).status, 404);
  const bad = await ph.request('POST', `/v1/templates/${tpl.id}/check?version=0`);
  t.is(bad.status, 400);
  t.regex(bad.body.error, /version/);
});

test('every issue code is documented in docs/template-check.md', (t) => {
  const doc = readFileSync(path.join(process.cwd(), 'docs/template-check.md'), 'utf8');
  for (const [code, definition] of Object.entries(ISSUE_CODES)) {
    t.regex(doc, new RegExp(`\\| \`${code}\` \\| ${definition.severity} \\|`), code);
  }
});
