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

test('durations a timer waits for fit a Node timer, and those that must not be zero are not', (t) => {
  const timer = /must be at most 2147483647ms \(about 24\.8 days\)/;
  checkCases(t, [
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
