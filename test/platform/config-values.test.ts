/**
 * Values the config schema refuses because they would only fail later (in a greeting, a DNS
 * record, a comparison with a recipient, a timer), one case per line: the raw sections, and the
 * key and reason expected, or null for a value that must pass.
 */
import test from 'ava';
import { checkConfigCases } from './config-cases.js';

test('delivery.bounce_subdomain is one or more lower-case DNS labels', (t) => {
  const bad = /delivery\.bounce_subdomain: must be one or more lower-case DNS labels/;
  checkConfigCases(t, [
    [{ delivery: { bounce_subdomain: 'bounces' } }, null],
    [{ delivery: { bounce_subdomain: 'rp' } }, null],
    [{ delivery: { bounce_subdomain: 'mail-1.bounces' } }, null],
    [{ delivery: { bounce_subdomain: 'x'.repeat(63) } }, null],
    [{ delivery: { bounce_subdomain: '' } }, bad],
    [{ delivery: { bounce_subdomain: 'Bounces' } }, bad],
    [{ delivery: { bounce_subdomain: '.bounces' } }, bad],
    [{ delivery: { bounce_subdomain: 'bounces.' } }, bad],
    [{ delivery: { bounce_subdomain: 'a..b' } }, bad],
    [{ delivery: { bounce_subdomain: '-bounces' } }, bad],
    [{ delivery: { bounce_subdomain: 'bounces-' } }, bad],
    [{ delivery: { bounce_subdomain: 'bounce_s' } }, bad],
    [{ delivery: { bounce_subdomain: 'bounces example' } }, bad],
    [{ delivery: { bounce_subdomain: 'x'.repeat(64) } }, bad],
    [{ delivery: { bounce_subdomain: `${'x'.repeat(40)}.${'y'.repeat(30)}` } }, bad],
  ]);
});

test('delivery.source_ips takes IP addresses only', (t) => {
  checkConfigCases(t, [
    [{ delivery: { source_ips: ['192.0.2.10', '2001:db8::10'] } }, null],
    [
      { delivery: { source_ips: ['192.0.2.10', 'mail.example.com'] } },
      /delivery\.source_ips\.1: must be an IP address/,
    ],
    [{ delivery: { source_ips: ['192.0.2.0/24'] } }, /delivery\.source_ips\.0: must be an IP address/],
    [{ delivery: { source_ips: ['192.0.2.10:25'] } }, /delivery\.source_ips\.0: must be an IP address/],
    [{ delivery: { source_ips: ['192.0.2.300'] } }, /delivery\.source_ips\.0: must be an IP address/],
    [{ delivery: { source_ips: [''] } }, /delivery\.source_ips\.0: must be an IP address/],
  ]);
});

test('smtp_in.complaint_address is a bare address, or empty for none', (t) => {
  const bad = /smtp_in\.complaint_address: must be a bare address/;
  checkConfigCases(t, [
    [{ smtp_in: { complaint_address: 'fbl@localhost' } }, null],
    [{ smtp_in: { complaint_address: 'FBL+isp@Mail.Example.com' } }, null],
    [{ smtp_in: { complaint_address: 'fbl@bücher.example' } }, null],
    [{ smtp_in: { complaint_address: '' } }, null],
    [{ smtp_in: { complaint_address: 'fbl' } }, bad],
    [{ smtp_in: { complaint_address: '@example.com' } }, bad],
    [{ smtp_in: { complaint_address: 'fbl@' } }, bad],
    [{ smtp_in: { complaint_address: 'Feedback <fbl@example.com>' } }, bad],
    [{ smtp_in: { complaint_address: '<fbl@example.com>' } }, bad],
    [{ smtp_in: { complaint_address: 'fbl@example.com ' } }, bad],
    [{ smtp_in: { complaint_address: 'f bl@example.com' } }, bad],
    [{ smtp_in: { complaint_address: '"f bl"@example.com' } }, bad],
    [{ smtp_in: { complaint_address: 'fbl@exa mple.com' } }, bad],
    [{ smtp_in: { complaint_address: 'fbl@example.com.' } }, bad],
    [{ smtp_in: { complaint_address: 'fbl@[192.0.2.1]' } }, bad],
    [{ smtp_in: { complaint_address: `${'x'.repeat(65)}@example.com` } }, bad],
  ]);
});

test('smtp_in.hostname is a host name', (t) => {
  const bad = /smtp_in\.hostname: must be a host name/;
  checkConfigCases(t, [
    [{ smtp_in: { hostname: 'localhost' } }, null],
    [{ smtp_in: { hostname: 'mx1.Example.com' } }, null],
    [{ smtp_in: { hostname: '' } }, bad],
    [{ smtp_in: { hostname: 'mail example' } }, bad],
    [{ smtp_in: { hostname: 'mx.example.com.' } }, bad],
    [{ smtp_in: { hostname: '.example.com' } }, bad],
    [{ smtp_in: { hostname: 'mx_1.example.com' } }, bad],
    [{ smtp_in: { hostname: '-mx.example.com' } }, bad],
    [{ smtp_in: { hostname: '192.0.2.1' } }, bad],
    [{ smtp_in: { hostname: 'mx.example.com\r\nX: y' } }, bad],
    [{ smtp_in: { hostname: `${'x'.repeat(64)}.example.com` } }, bad],
  ]);
});

test('durations a timer waits for fit a Node timer, and those that must not be zero are not', (t) => {
  const timer = /must be at most 2147483647ms \(about 24\.8 days\)/;
  checkConfigCases(t, [
    [{ server: { shutdown_timeout: '0s' } }, null],
    [{ server: { shutdown_timeout: '24d' } }, null],
    [{ server: { shutdown_timeout: '25d' } }, /server\.shutdown_timeout: .*24\.8 days/],
    [{ server: { shutdown_timeout: '2147483648ms' } }, /server\.shutdown_timeout: .*24\.8 days/],
    [{ server: { shutdown_timeout: '10 s' } }, /server\.shutdown_timeout: must be a duration/],
    [{ delivery: { poll_interval: '0s' } }, /delivery\.poll_interval: must be longer than 0/],
    [{ delivery: { poll_interval: '30d' } }, timer],
    [{ delivery: { poll_interval: '100ms' } }, null],
    [{ delivery: { lease: '2s' } }, null],
    [{ delivery: { lease: '1999ms' } }, /delivery\.lease: must be at least 2s/],
    [{ delivery: { lease: '0s' } }, /delivery\.lease: must be at least 2s/],
    [{ delivery: { connect_timeout: '0s' } }, /delivery\.connect_timeout: must be longer than 0/],
    [{ delivery: { smtp_timeout: '0ms' } }, /delivery\.smtp_timeout: must be longer than 0/],
    [{ delivery: { smtp_timeout: '999d' } }, /delivery\.smtp_timeout: .*24\.8 days/],
    [{ delivery: { idle_timeout: '0s', drain_timeout: '0s' } }, null],
    [{ delivery: { drain_timeout: '25d' } }, /delivery\.drain_timeout: .*24\.8 days/],
    [{ delivery: { retry_schedule: ['1m', '0s'] } }, /delivery\.retry_schedule\.1: must be longer than 0/],
    [{ delivery: { retry_schedule: ['200ms', '30d'] } }, null],
    [{ delivery: { max_age: '0d' } }, /delivery\.max_age: must be longer than 0/],
    [{ delivery: { max_age: '30d' } }, null],
    [{ delivery: { max_age: '3651d' } }, /delivery\.max_age: must be at most 3650d/],
    [{ delivery: { max_age: `${'9'.repeat(400)}d` } }, /delivery\.max_age: must be at most 3650d/],
    [{ smtp_in: { idle_timeout: '0s' } }, /smtp_in\.idle_timeout: must be longer than 0/],
    [{ smtp_in: { max_session: '0s' } }, /smtp_in\.max_session: must be longer than 0/],
    [{ smtp_in: { max_session: '30d' } }, /smtp_in\.max_session: .*24\.8 days/],
    [{ clamav: { rescan_interval: '0ms' } }, /clamav\.rescan_interval: must be longer than 0/],
    [{ clamav: { timeout_ms: 2 ** 31 } }, /clamav\.timeout_ms/],
    [{ dns: { timeout_ms: 2 ** 31 } }, /dns\.timeout_ms/],
    [{ dns: { timeout_ms: 2 ** 31 - 1 } }, null],
    [{ webhooks: { timeout: '0s' } }, /webhooks\.timeout: must be longer than 0/],
    [{ webhooks: { timeout: '25d' } }, /webhooks\.timeout: .*24\.8 days/],
    [{ webhooks: { retry_schedule: ['0s', '60d'], disable_after: '0s', rotation_overlap: '30d' } }, null],
    [{ webhooks: { disable_after: '9999d' } }, /webhooks\.disable_after: must be at most 3650d/],
  ]);
});

test('delivery.hostname, spf_include, tracking.domain, sandbox.test_domain and clamav.host are names the code can use', (t) => {
  checkConfigCases(t, [
    [{ delivery: { hostname: 'mta.example.com' } }, null],
    [{ delivery: { hostname: 'mta example' } }, /delivery\.hostname: must be a host name/],
    [{ delivery: { hostname: '203.0.113.5' } }, /delivery\.hostname: must be a host name/],
    [{ delivery: { spf_include: '_spf.example.net' } }, null],
    [{ delivery: { spf_include: 'spf.example.net.' } }, null],
    [
      { delivery: { spf_include: 'include:spf.example.net' } },
      /delivery\.spf_include: must be a domain name/,
    ],
    [{ delivery: { spf_include: 'spf.example.net ~all' } }, /delivery\.spf_include: must be a domain name/],
    [{ delivery: { spf_include: 'example' } }, /delivery\.spf_include: must be a domain name/],
    [{ tracking: { domain: 'links.example.com' } }, null],
    [{ tracking: { domain: '192.0.2.7' } }, null],
    [{ tracking: { domain: 'https://links.example.com' } }, /tracking\.domain: must be a host name/],
    [{ tracking: { domain: 'links.example.com:8443' } }, /tracking\.domain: must be a host name/],
    [{ sandbox: { test_domain: 'test.example.com' } }, null],
    [{ sandbox: { test_domain: 'Posthorn.test' } }, /sandbox\.test_domain: must be a lower-case domain name/],
    [{ sandbox: { test_domain: 'localhost' } }, /sandbox\.test_domain: must be a lower-case domain name/],
    [
      { sandbox: { test_domain: '@posthorn.test' } },
      /sandbox\.test_domain: must be a lower-case domain name/,
    ],
    [{ clamav: { host: 'clamd.internal' } }, null],
    [{ clamav: { host: '::1' } }, null],
    [{ clamav: { host: 'clamd:3310' } }, /clamav\.host: must be a host name/],
    [{ clamav: { port: 0 } }, /clamav\.port/],
  ]);
});

test('smtp_in.feedback_loop_domains are domain names of two labels or more', (t) => {
  const bad = /smtp_in\.feedback_loop_domains\.1: must be a domain name of two labels or more/;
  const loops = (name: string) => ({ smtp_in: { feedback_loop_domains: ['fbl.example.net', name] } });
  checkConfigCases(t, [
    [{ smtp_in: { feedback_loop_domains: [] } }, null],
    [loops('FBL.Example.com'), null],
    [loops('isp.example'), null],
    [loops('a..b'), bad],
    [loops('.example.net'), bad],
    [loops('example.net.'), bad],
    [loops('-fbl.example.net'), bad],
    [loops('fbl_1.example.net'), bad],
    [loops('fbl example.net'), bad],
    [loops('fbl.example.net\r\nX: y'), bad],
    [loops(`${'x'.repeat(64)}.example.net`), bad],
    [loops('com'), bad],
    [loops('192.0.2.1'), bad],
    [loops(''), bad],
  ]);
});

test('smtp_in.feedback_loop_domains refuses a public suffix, which would trust every domain under it', (t) => {
  const suffix = /smtp_in\.feedback_loop_domains\.0: is a public suffix/;
  const loops = (name: string) => ({ smtp_in: { feedback_loop_domains: [name] } });
  checkConfigCases(t, [
    [loops('co.uk'), suffix],
    [loops('CO.UK'), suffix],
    [loops('blogspot.com'), suffix],
    [loops('fbl.example.co.uk'), null],
    [loops('example.co.uk'), null],
    [loops('fbl.yahoo.com'), null],
  ]);
});

test('domains.recheck_cron must be a cron expression node-cron runs', (t) => {
  checkConfigCases(t, [
    [{ domains: { recheck_cron: '17 4 * * *' } }, null],
    [{ domains: { recheck_cron: '0 */6 * * 1-5' } }, null],
    [{ domains: { recheck_cron: '99 99 * * *' } }, /domains\.recheck_cron: must be a valid cron expression/],
    [{ domains: { recheck_cron: '17 4 * * monday-ish' } }, /domains\.recheck_cron/],
  ]);
});

test('delivery lanes: a name and traffic class once, and a rate a timer can wait for', (t) => {
  checkConfigCases(t, [
    [{ delivery: { lanes: [{ name: 'proton' }, { name: 'proton', traffic: 'marketing' }] } }, null],
    [
      {
        delivery: {
          lanes: [{ name: 'proton' }, { name: 'gmail' }, { name: 'proton', traffic: 'transactional' }],
        },
      },
      /delivery\.lanes\.2\.name: lane "proton" appears twice for transactional traffic/,
    ],
    [{ delivery: { lanes: [{ name: 'slow', rate_per_second: 0.001 }] } }, null],
    [
      { delivery: { lanes: [{ name: 'slow', rate_per_second: 0.0000001 }] } },
      /delivery\.lanes\.0\.rate_per_second/,
    ],
  ]);
});

test('smtp_in.tls_cert_file and tls_key_file are set together or not at all', (t) => {
  checkConfigCases(t, [
    [{ smtp_in: { tls_cert_file: '/etc/ssl/mx.pem', tls_key_file: '/etc/ssl/mx.key' } }, null],
    [
      { smtp_in: { tls_cert_file: '/etc/ssl/mx.pem' } },
      /smtp_in\.tls_key_file: must be set when smtp_in\.tls_cert_file is/,
    ],
    [
      { smtp_in: { tls_key_file: '/etc/ssl/mx.key' } },
      /smtp_in\.tls_cert_file: must be set when smtp_in\.tls_key_file is/,
    ],
  ]);
});
