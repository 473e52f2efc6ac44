import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { BIN, workdir } from '../helpers/cli.js';

test('init writes the config, the master key and a self-signed STARTTLS certificate; a second init keeps them', async (t) => {
  t.timeout(120_000);
  const w = workdir(t);
  const first = await w.runAsync(['init']);
  t.is(first.code, 0, first.stderr);
  t.regex(first.stdout, /Wrote .*config\/config\.toml/);
  const key = path.join(w.dir, 'data/master.key');
  const keyText = readFileSync(key, 'utf8');
  t.is(statSync(key).mode & 0o777, 0o600);
  const cert = path.join(w.dir, 'data/tls/self-signed.crt');
  t.regex(first.stdout, /Wrote a self-signed STARTTLS certificate/);
  const certText = readFileSync(cert, 'utf8');
  t.regex(certText, /BEGIN CERTIFICATE/);
  const second = await w.runAsync(['init']);
  t.regex(second.stdout, /already exists/);
  t.is(readFileSync(key, 'utf8'), keyText, 'the master key is never rewritten');
  t.regex(second.stdout, /STARTTLS certificate: .* \(kept\)/);
  t.is(readFileSync(cert, 'utf8'), certText, 'the certificate is kept');
});

test('init creates the data directory 0700 under a umask of 022, and tightens an existing 0755 one', async (t) => {
  t.timeout(120_000);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('POSTHORN_')));
  const init = (dir: string) =>
    spawnSync('sh', ['-c', 'umask 022 && exec "$0" init', BIN], { cwd: dir, env, encoding: 'utf8' });
  const fresh = workdir(t);
  const first = init(fresh.dir);
  t.is(first.status, 0, first.stderr);
  t.is(statSync(path.join(fresh.dir, 'data')).mode & 0o777, 0o700);
  const older = workdir(t);
  mkdirSync(path.join(older.dir, 'data'));
  chmodSync(path.join(older.dir, 'data'), 0o755);
  const second = init(older.dir);
  t.is(second.status, 0, second.stderr);
  t.is(statSync(path.join(older.dir, 'data')).mode & 0o777, 0o700);
});

test('init creates a missing parent of a master_key_file outside the data directory 0700, and leaves an existing one as it is', async (t) => {
  t.timeout(120_000);
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('POSTHORN_')));
  const initWithKey = (w: { dir: string }, keyFile: string) => {
    mkdirSync(path.join(w.dir, 'config'), { recursive: true });
    writeFileSync(
      path.join(w.dir, 'config/config.toml'),
      `[security]\nmaster_key_file = ${JSON.stringify(keyFile)}\n`,
    );
    return spawnSync('sh', ['-c', 'umask 022 && exec "$0" init', BIN], { cwd: w.dir, env, encoding: 'utf8' });
  };
  const fresh = workdir(t);
  const keyFile = path.join(fresh.dir, 'secrets/posthorn/master.key');
  const created = initWithKey(fresh, keyFile);
  t.is(created.status, 0, created.stderr);
  t.is(statSync(keyFile).mode & 0o777, 0o600);
  t.is(statSync(path.join(fresh.dir, 'secrets/posthorn')).mode & 0o777, 0o700);
  t.is(statSync(path.join(fresh.dir, 'secrets')).mode & 0o777, 0o700);
  const shared = workdir(t);
  mkdirSync(path.join(shared.dir, 'etc'));
  chmodSync(path.join(shared.dir, 'etc'), 0o755);
  const kept = initWithKey(shared, path.join(shared.dir, 'etc/master.key'));
  t.is(kept.status, 0, kept.stderr);
  t.is(statSync(path.join(shared.dir, 'etc')).mode & 0o777, 0o755, 'an existing directory keeps its mode');
});

test('migrate applies the migrations once', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const first = await w.runAsync(['migrate']);
  t.is(first.code, 0, first.stderr);
  t.regex(first.stdout, /Applied: 0001-foundation/);
  t.regex((await w.runAsync(['migrate'])).stdout, /up to date/);
});

test('config check validates without starting and exits 2 with every bad key path', async (t) => {
  t.timeout(120_000);
  const w = workdir(t);
  t.is((await w.runAsync(['config', 'check'])).code, 0);
  const file = path.join(w.dir, 'bad.toml');
  writeFileSync(file, '[server]\nlisten = 8080\n[limits]\nmax_body_bytes = -1\n[nonsense]\nx = 1\n');
  const result = await w.runAsync(['config', 'check', '--config', file]);
  t.is(result.code, 2);
  t.regex(result.stderr, /server\.listen/);
  t.regex(result.stderr, /limits\.max_body_bytes/);
  t.regex(result.stderr, /nonsense: unknown key/);
  writeFileSync(file, '[server\nlisten=');
  const broken = await w.runAsync(['config', 'check', '--config', file]);
  t.is(broken.code, 2);
  t.regex(broken.stderr, /not valid TOML/);
});

test('config check and serve both exit 2 on values serve could not run with, naming each key', async (t) => {
  t.timeout(120_000);
  const w = workdir(t);
  const file = path.join(w.dir, 'bad.toml');
  writeFileSync(
    file,
    [
      '[server]',
      'listen = "127.0.0.1:99999"',
      'public_url = "mail.example.com:8080"',
      '[dns]',
      'servers = ["999.999.999.999:53"]',
      '[sandbox]',
      'from = "not an address"',
      '',
    ].join('\n'),
  );
  for (const command of [['config', 'check'], ['serve']]) {
    const result = await w.runAsync([...command, '--config', file]);
    t.is(result.code, 2, command.join(' '));
    t.regex(result.stderr, /server\.listen: port 99999 is above 65535/);
    t.regex(result.stderr, /server\.public_url: must be an absolute http:\/\/ or https:\/\/ URL/);
    t.regex(result.stderr, /dns\.servers\.0: must be an IP address and port/);
    t.regex(result.stderr, /sandbox\.from: must be a mailbox/);
    t.notRegex(result.stderr, /at .*\.js:\d+/, 'no stack trace');
  }
  const ftp = await w.runAsync(['config', 'check'], { POSTHORN_SERVER_PUBLIC_URL: 'ftp://x' });
  t.is(ftp.code, 2);
  t.regex(ftp.stderr, /server\.public_url: must be an absolute/);
  const list = await w.runAsync(['config', 'check'], { POSTHORN_DNS_SERVERS: '[bad' });
  t.is(list.code, 2);
  t.regex(list.stderr, /POSTHORN_DNS_SERVERS \(dns\.servers\): not a JSON list/);
});

test('environment variables override single keys, and config print shows the result with secrets redacted', async (t) => {
  t.timeout(120_000);
  const w = workdir(t);
  const file = path.join(w.dir, 'c.toml');
  writeFileSync(
    file,
    '[smtp_in]\ntls_cert_file = "/etc/ssl/mx.pem"\ntls_key_file = "/etc/secret/key.pem"\n[dns]\nservers = ["127.0.0.1:5353"]\n',
  );
  const printed = await w.runAsync(['config', 'print', '--config', file], {
    POSTHORN_SERVER_LISTEN: '127.0.0.1:9999',
    POSTHORN_LIMITS_MAX_BODY_BYTES: '1000',
    POSTHORN_SMTP_IN_ENABLED: 'false',
  });
  t.is(printed.code, 0, printed.stderr);
  t.regex(printed.stdout, /listen = "127\.0\.0\.1:9999"/);
  t.regex(printed.stdout, /max_body_bytes = 1000/);
  t.regex(printed.stdout, /enabled = false/);
  t.regex(printed.stdout, /servers = \[ "127\.0\.0\.1:5353" \]/);
  t.regex(printed.stdout, /tls_key_file = "\[redacted\]"/);
  t.false(printed.stdout.includes('/etc/secret/key.pem'));
  const bad = await w.runAsync(['config', 'check', '--config', file], {
    POSTHORN_LIMITS_MAX_BODY_BYTES: 'lots',
  });
  t.is(bad.code, 2);
  t.regex(bad.stderr, /limits\.max_body_bytes/);
});
