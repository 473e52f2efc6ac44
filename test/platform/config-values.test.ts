/**
 * Values the config schema refuses because they would only fail later (in a greeting, a DNS
 * record, a comparison with a recipient, a timer), one case per line: the raw sections, and the
 * key and reason expected, or null for a value that must pass.
 */
import test from 'ava';
import { ConfigError, validateConfig } from '../../src/platform/config/load.js';

type Case = readonly [Record<string, Record<string, unknown>>, RegExp | null];

function checkCases(t: import('ava').ExecutionContext, cases: readonly Case[]): void {
  for (const [raw, expected] of cases) {
    const label = JSON.stringify(raw);
    if (expected === null) {
      t.notThrows(() => validateConfig(raw, 'test'), label);
    } else {
      const error = t.throws(() => validateConfig(raw, 'test'), { instanceOf: ConfigError }, label);
      t.regex(error?.problems.join('\n') ?? '', expected, label);
    }
  }
}

test('delivery.bounce_subdomain is one or more lower-case DNS labels', (t) => {
  const bad = /delivery\.bounce_subdomain: must be one or more lower-case DNS labels/;
  checkCases(t, [
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
  checkCases(t, [
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
  checkCases(t, [
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
  checkCases(t, [
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
