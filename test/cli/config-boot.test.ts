/**
 * A value `posthorn serve` could not run with stops `posthorn config check` (the unit's
 * ExecStartPre) and `serve` alike, with exit 2 and the key; good values pass both, and serve runs
 * with them.
 */
import test from 'ava';
import { workdir } from '../helpers/cli.js';
import { configFile, expectRefused, serveOnce } from '../helpers/config-file.js';

test('bad bounce_subdomain, source_ips, complaint_address and smtp_in.hostname stop config check and serve with exit 2, naming each key', (t) => {
  const w = workdir(t);
  const file = configFile(w, 'bad.toml', [
    '[storage]',
    '[delivery]',
    'bounce_subdomain = "Bounces."',
    'source_ips = ["mail.example.com"]',
    '[smtp_in]',
    'listen = "127.0.0.1:0"',
    'hostname = "mail example"',
    'complaint_address = "Feedback <fbl@example.com>"',
  ]);
  expectRefused(t, w, file, [
    /delivery\.bounce_subdomain: must be one or more lower-case DNS labels/,
    /delivery\.source_ips\.0: must be an IP address/,
    /smtp_in\.hostname: must be a host name/,
    /smtp_in\.complaint_address: must be a bare address/,
  ]);
});

test('durations that are zero or longer than a Node timer can wait stop config check and serve with exit 2, naming each key', (t) => {
  const w = workdir(t);
  const file = configFile(w, 'bad.toml', [
    '[server]',
    'shutdown_timeout = "30d"',
    '[storage]',
    '[delivery]',
    'lease = "0s"',
    'poll_interval = "0s"',
    'retry_schedule = ["1m", "0s"]',
    '[smtp_in]',
    'max_session = "0s"',
    '[dns]',
    'timeout_ms = 3000000000',
    '[webhooks]',
    'timeout = "25d"',
  ]);
  expectRefused(t, w, file, [
    /server\.shutdown_timeout: must be at most 2147483647ms/,
    /delivery\.lease: must be at least 2s/,
    /delivery\.poll_interval: must be longer than 0/,
    /delivery\.retry_schedule\.1: must be longer than 0/,
    /smtp_in\.max_session: must be longer than 0/,
    /dns\.timeout_ms/,
    /webhooks\.timeout: must be at most 2147483647ms/,
  ]);
});

test('bad host names, lanes, a cron expression and half a certificate pair stop config check and serve with exit 2, naming each key', (t) => {
  const w = workdir(t);
  const file = configFile(w, 'bad.toml', [
    '[storage]',
    '[smtp_in]',
    'tls_cert_file = "/etc/ssl/mx.pem"',
    '[delivery]',
    'hostname = "mta example"',
    'spf_include = "include:spf.example.net"',
    '[domains]',
    'recheck_cron = "99 99 * * *"',
    '[tracking]',
    'domain = "https://links.example.com"',
    '[sandbox]',
    'test_domain = "localhost"',
    '[[delivery.lanes]]',
    'name = "proton"',
    '[[delivery.lanes]]',
    'name = "proton"',
  ]);
  expectRefused(t, w, file, [
    /smtp_in\.tls_key_file: must be set when smtp_in\.tls_cert_file is/,
    /delivery\.hostname: must be a host name/,
    /delivery\.spf_include: must be a domain name/,
    /delivery\.lanes\.1\.name: lane "proton" appears twice/,
    /domains\.recheck_cron: must be a valid cron expression/,
    /tracking\.domain: must be a host name/,
    /sandbox\.test_domain: must be a lower-case domain name/,
  ]);
});

test('good values of the checked keys pass config check, and serve runs with them', async (t) => {
  const w = workdir(t);
  const file = configFile(w, 'good.toml', [
    '[server]',
    'listen = "127.0.0.1:0"',
    '[storage]',
    '[delivery]',
    'bounce_subdomain = "rp.mail"',
    'source_ips = ["127.0.0.1"]',
    'lease = "2s"',
    'drain_timeout = "0s"',
    'hostname = "mta.example.com"',
    'spf_include = "_spf.example.net"',
    '[smtp_in]',
    'listen = "127.0.0.1:0"',
    'hostname = "mx1.example.com"',
    'complaint_address = "fbl@mx1.example.com"',
    'max_session = "24d"',
    '[webhooks]',
    'timeout = "1ms"',
    'retry_schedule = ["0s", "60d"]',
    '[domains]',
    'recheck_cron = "0 */6 * * 1-5"',
    '[tracking]',
    'domain = "links.example.com"',
    '[sandbox]',
    'test_domain = "test.example.com"',
    '[[delivery.lanes]]',
    'name = "proton"',
    'mx_suffixes = ["protonmail.ch"]',
    'rate_per_second = 0.5',
    '[[delivery.lanes]]',
    'name = "proton"',
    'traffic = "marketing"',
  ]);
  const check = w.run(['config', 'check', '--config', file]);
  t.is(check.code, 0, check.stderr);
  const { health, code, log } = await serveOnce(w, file);
  t.is(health.components.smtp_in.status, 'operational', JSON.stringify(health));
  t.is(code, 0, log);
});
