/**
 * A domain added on a fresh install, as a new user does it: the config still names localhost and
 * 127.0.0.1. No record Posthorn proposes may be one its own verifier rejects; the response says
 * which keys the operator must set, and once they are set the same domain verifies.
 */
import test from 'ava';
import { startDnsServer } from '../helpers/dns-server.js';
import { startPosthorn } from '../helpers/server.js';
import { createDomain, type DomainView, publish } from './env.js';

interface ConfigIssue {
  level: string;
  keys: string[];
  withheld: string[];
  message: string;
}

test('with the default config, every proposed record verifies, SPF is withheld and the response names the keys to set', async (t) => {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  // The defaults as `posthorn serve` writes them, with only the resolver pointed at loopback DNS.
  const ph = await startPosthorn(t, { dns: { servers: [dns.address] } });
  const domain = await createDomain(ph, 'example.com');
  const values = domain.records.map((r) => `${r.type} ${r.value}`).join('\n');
  t.notRegex(values, /localhost|127\.0\.0\.1/, 'no record names this host locally');
  t.deepEqual(
    domain.records.map((r) => r.purpose),
    ['dkim', 'dmarc'],
  );
  const issues = (domain as DomainView & { config_issues: ConfigIssue[] }).config_issues;
  t.deepEqual(
    issues.map((issue) => [issue.level, issue.keys[0], issue.withheld]),
    [
      ['required', 'delivery.hostname', []],
      ['required', 'delivery.sending_ips', ['spf', 'return_path']],
      ['required', 'smtp_in.hostname', ['return_path']],
      ['required', 'server.public_url', ['tracking']],
    ],
  );
  t.regex(issues[1]?.message ?? '', /set delivery\.sending_ips to the public addresses/);

  publish(dns, domain);
  const verified = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(verified.status, 200);
  for (const r of verified.body.records) t.is(r.status, 'verified', `${r.purpose}: ${r.reason}`);
  t.is(verified.body.status, 'failed', 'no domain verifies while SPF cannot be proposed');
  t.is(verified.body.config_issues.length, 4);
});

test('with public names and addresses set, there are no config issues and the same steps verify the domain', async (t) => {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const ph = await startPosthorn(t, {
    dns: { servers: [dns.address] },
    delivery: { hostname: 'mta.posthorn.dev', sending_ips: ['203.0.114.5'] },
    smtp_in: { hostname: 'mx.posthorn.dev' },
    server: { public_url: 'https://mail.posthorn.dev' },
  });
  const domain = await createDomain(ph, 'example.com');
  t.deepEqual((domain as DomainView & { config_issues: ConfigIssue[] }).config_issues, []);
  t.deepEqual(
    domain.records.map((r) => `${r.purpose} ${r.type} ${r.purpose === 'dkim' ? '...' : r.value}`),
    [
      'spf TXT v=spf1 ip4:203.0.114.5 ~all',
      'dkim TXT ...',
      'dmarc TXT v=DMARC1; p=none; adkim=r; aspf=r',
      'return_path MX mx.posthorn.dev',
      'return_path TXT v=spf1 ip4:203.0.114.5 ~all',
      'tracking CNAME mail.posthorn.dev',
    ],
  );
  publish(dns, domain);
  // The loopback server does not chase a CNAME: publish what a resolver would answer.
  dns.set('track.example.com', 'A', ['203.0.114.6']);
  dns.set('mail.posthorn.dev', 'A', ['203.0.114.6']);
  const verified = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  for (const r of verified.body.records) t.is(r.status, 'verified', `${r.purpose}: ${r.reason}`);
  t.is(verified.body.status, 'verified');
});

test('private and documentation values are proposed, each with advice naming its key', async (t) => {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const ph = await startPosthorn(t, {
    dns: { servers: [dns.address] },
    delivery: { hostname: 'mta.internal', sending_ips: ['10.1.2.3'] },
    smtp_in: { hostname: 'mx.posthorn.test' },
    tracking: { domain: '192.0.2.80' },
  });
  const domain = (await createDomain(ph, 'example.com')) as DomainView & { config_issues: ConfigIssue[] };
  t.deepEqual(
    domain.records.map((r) => r.purpose),
    ['spf', 'dkim', 'dmarc', 'return_path', 'return_path', 'tracking'],
  );
  t.deepEqual(
    domain.config_issues.map((issue) => `${issue.level} ${issue.keys[0]}`),
    [
      'advised delivery.hostname',
      'advised delivery.sending_ips',
      'advised smtp_in.hostname',
      'advised tracking.domain',
    ],
  );
  t.regex(domain.config_issues[1]?.message ?? '', /10\.1\.2\.3 \(private\)/);
});
