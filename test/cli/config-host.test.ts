/**
 * The files and addresses a config names must exist on this host: `config check` and `serve` check
 * them after the schema and exit 2 naming each key, instead of an engine failing when it starts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { ensureSelfSignedCert } from '../../src/platform/tls/self-signed.js';
import { workdir } from '../helpers/cli.js';
import { configFile, expectRefused, serveOnce } from '../helpers/config-file.js';

test('a missing CA file, a source address not on this host, a certificate with the wrong key and misplaced data paths stop config check and serve with exit 2, naming each key', async (t) => {
  const w = workdir(t);
  const a = await ensureSelfSignedCert(path.join(w.dir, 'a'), 'mx-a.example.com');
  const b = await ensureSelfSignedCert(path.join(w.dir, 'b'), 'mx-b.example.com');
  const notADir = path.join(w.dir, 'data-file');
  writeFileSync(notADir, '');
  mkdirSync(path.join(w.dir, 'key-dir'));
  const file = configFile(w, 'bad.toml', [
    '[storage]',
    `data_dir = ${JSON.stringify(notADir)}`,
    '[security]',
    `master_key_file = ${JSON.stringify(path.join(w.dir, 'key-dir'))}`,
    '[delivery]',
    'source_ips = ["127.0.0.1", "192.0.2.10"]',
    `tls_ca_file = ${JSON.stringify(path.join(w.dir, 'missing-ca.pem'))}`,
    '[smtp_in]',
    'listen = "127.0.0.1:0"',
    `tls_cert_file = ${JSON.stringify(a.certFile)}`,
    `tls_key_file = ${JSON.stringify(b.keyFile)}`,
  ]);
  expectRefused(t, w, file, [
    /storage\.data_dir: .*data-file is not a directory/,
    /security\.master_key_file: .*key-dir is a directory/,
    /delivery\.source_ips\.1: 192\.0\.2\.10 is not an address of this host \(EADDRNOTAVAIL\)/,
    /delivery\.tls_ca_file: .*missing-ca\.pem cannot be read \(ENOENT\)/,
    /smtp_in\.tls_cert_file, smtp_in\.tls_key_file: not a PEM certificate and its private key \(.*key values mismatch/,
  ]);
  const started = Date.now();
  const result = await w.runAsync(['config', 'check', '--config', file]);
  t.true(
    Date.now() - started >= 2900,
    'a missing source address is waited for (IPv6 DAD after boot) before it is refused',
  );
  t.notRegex(result.stderr, /source_ips\.0/);
  t.false(result.stderr.includes(b.keyFile), 'the key file path is not shown (config print redacts it)');
});

test('a CA file without certificates and unreadable STARTTLS files are named; an engine that does not run is not checked', async (t) => {
  const w = workdir(t);
  const notPem = path.join(w.dir, 'ca.txt');
  writeFileSync(notPem, 'not a certificate\n');
  const secretKey = path.join(w.dir, 'secret', 'mx.key');
  const lines = [
    '[storage]',
    '[delivery]',
    `tls_ca_file = ${JSON.stringify(notPem)}`,
    'source_ips = ["192.0.2.10"]',
    '[smtp_in]',
    `tls_cert_file = ${JSON.stringify(path.join(w.dir, 'mx.pem'))}`,
    `tls_key_file = ${JSON.stringify(secretKey)}`,
  ];
  const file = configFile(w, 'bad.toml', lines);
  expectRefused(t, w, file, [
    /delivery\.tls_ca_file: .*ca\.txt holds no PEM certificate/,
    /smtp_in\.tls_cert_file: .*mx\.pem cannot be read \(ENOENT\)/,
    /smtp_in\.tls_key_file: cannot be read \(ENOENT\)/,
  ]);
  t.false((await w.runAsync(['config', 'check', '--config', file])).stderr.includes(secretKey));

  // The same files with both engines off: nothing that runs reads them.
  const disabled = configFile(
    w,
    'disabled.toml',
    lines.flatMap((line) =>
      line === '[delivery]' || line === '[smtp_in]' ? [line, 'enabled = false'] : [line],
    ),
  );
  const check = await w.runAsync(['config', 'check', '--config', disabled]);
  t.is(check.code, 0, check.stderr);
});

test('a CA file, a certificate with its key and source addresses of this host pass config check, and serve runs with them', async (t) => {
  const w = workdir(t);
  const a = await ensureSelfSignedCert(path.join(w.dir, 'a'), 'mx-a.example.com');
  const file = configFile(w, 'good.toml', [
    '[server]',
    'listen = "127.0.0.1:0"',
    '[storage]',
    '[delivery]',
    'source_ips = ["127.0.0.1", "::1"]',
    `tls_ca_file = ${JSON.stringify(a.certFile)}`,
    '[smtp_in]',
    'listen = "127.0.0.1:0"',
    'hostname = "mx-a.example.com"',
    `tls_cert_file = ${JSON.stringify(a.certFile)}`,
    `tls_key_file = ${JSON.stringify(a.keyFile)}`,
  ]);
  const check = await w.runAsync(['config', 'check', '--config', file]);
  t.is(check.code, 0, check.stderr);
  const { health, code, log } = await serveOnce(w, file);
  t.is(health.components.smtp_in.status, 'operational', JSON.stringify(health));
  t.is(health.components.queue.status, 'operational', JSON.stringify(health));
  t.is(code, 0, log);
});
