import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { exampleToml } from '../../src/platform/config/example.js';
import { applyEnvOverrides, ConfigError, validateConfig } from '../../src/platform/config/load.js';
import { configKeys } from '../../src/platform/config/shape.js';
import { type ConfigCase, checkConfigCases } from './config-cases.js';

const root = path.resolve(import.meta.dirname, '../../..');

test('the embedded defaults are a valid configuration with the documented listen addresses', (t) => {
  const config = validateConfig({}, 'defaults');
  t.is(config.server.listen, '127.0.0.1:8080');
  t.is(config.smtp_in.listen, '127.0.0.1:2525');
  t.is(config.storage.data_dir, './data');
  t.deepEqual(config.dns.servers, []);
});

test('config/posthorn.example.toml is generated from the schema and is up to date', (t) => {
  const committed = readFileSync(path.join(root, 'config/posthorn.example.toml'), 'utf8');
  t.is(
    committed,
    exampleToml(),
    'regenerate with: bin/posthorn config example > config/posthorn.example.toml',
  );
});

test('every key has a description, and the example documents every key', (t) => {
  const example = exampleToml();
  for (const key of configKeys()) {
    t.true(key.description.length > 10, `${key.section}.${key.key} needs a description`);
    t.true(example.includes(`${key.key} =`), `${key.section}.${key.key} missing from the example`);
  }
});

test('the example file parses back to the defaults', async (t) => {
  const { parse } = await import('smol-toml');
  const uncommented = exampleToml()
    .split('\n')
    .map((line) => line.replace(/^# ?(\[|[a-z_]+ = )/, '$1'))
    .join('\n');
  t.deepEqual(validateConfig(parse(uncommented), 'example'), validateConfig({}, 'defaults'));
});

test('environment overrides coerce numbers, booleans and lists', (t) => {
  const raw = applyEnvOverrides(
    {},
    {
      POSTHORN_SERVER_LISTEN: '127.0.0.1:0',
      POSTHORN_LIMITS_MAX_BODY_BYTES: '2048',
      POSTHORN_WEBHOOKS_ALLOW_HTTP: 'true',
      POSTHORN_DNS_SERVERS: '127.0.0.1:53,127.0.0.1:5353',
      POSTHORN_SMTP_IN_MAX_MESSAGE_BYTES: '1000',
    },
  );
  const config = validateConfig(raw, 'env');
  t.is(config.server.listen, '127.0.0.1:0');
  t.is(config.limits.max_body_bytes, 2048);
  t.true(config.webhooks.allow_http);
  t.deepEqual(config.dns.servers, ['127.0.0.1:53', '127.0.0.1:5353']);
  t.is(config.smtp_in.max_message_bytes, 1000, 'a two-word section (smtp_in) is matched');
});

test('invalid values are reported with their key path and reason, all at once', (t) => {
  const error = t.throws(
    () => validateConfig({ server: { listen: 'x' }, log: { level: 'loud' }, extra: {} }, 'test.toml'),
    { instanceOf: ConfigError },
  );
  const problems = error.problems.join('\n');
  t.regex(problems, /server\.listen: must be host:port/);
  t.regex(problems, /log\.level/);
  t.regex(problems, /extra: unknown key/);
  t.regex(error.message, /test\.toml/);
});

test('delivery.sending_ips takes only IP addresses, and dkim.selector_prefix only the start of a DNS label', (t) => {
  const error = t.throws(
    () =>
      validateConfig(
        {
          delivery: { sending_ips: ['192.0.2.10', '192.0.2.0/24', '192.0.2.300', 'mail.example.com'] },
          dkim: { selector_prefix: 'my_prefix' },
        },
        'test.toml',
      ),
    { instanceOf: ConfigError },
  );
  const problems = error.problems.join('\n');
  t.regex(problems, /delivery\.sending_ips\.1: must be an IP address/);
  t.regex(problems, /delivery\.sending_ips\.2: must be an IP address/);
  t.regex(problems, /delivery\.sending_ips\.3: must be an IP address/);
  t.notRegex(problems, /sending_ips\.0/);
  t.regex(problems, /dkim\.selector_prefix: must be the start of a DNS label/);
  for (const prefix of ['-ph', 'p.h', 'ph ', 'x'.repeat(53)]) {
    t.throws(() => validateConfig({ dkim: { selector_prefix: prefix } }, 'test.toml'), {
      instanceOf: ConfigError,
    });
  }
  const ok = validateConfig(
    { delivery: { sending_ips: ['192.0.2.10', '2001:db8::10'] }, dkim: { selector_prefix: 'Mail-2' } },
    'test.toml',
  );
  t.deepEqual(ok.delivery.sending_ips, ['192.0.2.10', '2001:db8::10']);
  t.is(
    validateConfig({ dkim: { selector_prefix: 'x'.repeat(52) } }, 'test.toml').dkim.selector_prefix.length,
    52,
  );
});

test('addresses, URLs and the sandbox sender are checked for what boot needs, not just their shape', (t) => {
  const cases: ConfigCase[] = [
    [{ server: { listen: '127.0.0.1:0' } }, null],
    [{ server: { listen: '[::1]:8080' } }, null],
    [{ server: { listen: 'localhost:8080' } }, null],
    [{ server: { listen: '127.0.0.1:99999' } }, /server\.listen: port 99999 is above 65535/],
    [{ smtp_in: { listen: '300.1.1.1:25' } }, /smtp_in\.listen: 300\.1\.1\.1 is not an IPv4 address/],
    [{ smtp_in: { listen: '[fe::zz]:25' } }, /smtp_in\.listen: must be host:port/],
    [{ dns: { servers: ['127.0.0.1:53', '[::1]:53'] } }, null],
    [{ dns: { servers: ['999.999.999.999:53'] } }, /dns\.servers\.0: must be an IP address and port/],
    [{ dns: { servers: ['127.0.0.1:70000'] } }, /dns\.servers\.0: port 70000/],
    [{ dns: { servers: ['::1:53'] } }, /dns\.servers\.0: must be an IP address and port/],
    [{ server: { public_url: 'https://mail.example.com' } }, null],
    [{ server: { public_url: 'mail.example.com:8080' } }, /server\.public_url: must be an absolute http/],
    [{ server: { public_url: 'ftp://x' } }, /server\.public_url: must be an absolute http/],
    [{ server: { public_url: 'http://' } }, /server\.public_url/],
    [{ sandbox: { from: 'Sandbox <sandbox@example.com>' } }, null],
    [{ sandbox: { from: 'not an address' } }, /sandbox\.from: must be a mailbox/],
  ];
  checkConfigCases(t, cases);
});

test('a list override that is not JSON is a configuration error naming the variable', (t) => {
  const error = t.throws(() => applyEnvOverrides({}, { POSTHORN_DNS_SERVERS: '[bad' }), {
    instanceOf: ConfigError,
  });
  t.regex(error.problems.join('\n'), /POSTHORN_DNS_SERVERS \(dns\.servers\): not a JSON list/);
});
