/**
 * `config check` answers as `serve` would, and each problem points where the operator can fix it:
 * the file named, the environment variable that set a key, the line of a TOML syntax error.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { workdir } from '../helpers/cli.js';

test('config check and print exit 2 when the config named by --config or POSTHORN_CONFIG does not exist, as serve does', async (t) => {
  t.timeout(120_000);
  const w = workdir(t);
  const missing = path.join(w.dir, 'etc/posthorn.toml');
  for (const [args, env] of [
    [['--config', missing], {}],
    [[], { POSTHORN_CONFIG: missing }],
  ] as const) {
    for (const command of [['config', 'check'], ['config', 'print'], ['serve']]) {
      const result = await w.runAsync([...command, ...args], {
        ...env,
        POSTHORN_SERVER_LISTEN: '127.0.0.1:0',
      });
      t.is(result.code, 2, `${command.join(' ')} ${JSON.stringify(env)}`);
      t.true(result.stderr.includes(`Config file ${missing} does not exist`), result.stderr);
      t.regex(result.stderr, /posthorn init --config/);
    }
  }
  // The default path may be missing: the first `serve` writes it.
  const bare = await w.runAsync(['config', 'check']);
  t.is(bare.code, 0, bare.stderr);
  t.regex(bare.stdout, /embedded defaults/);
});

test('a bad value from the environment names its variable, and a TOML syntax error its line and column', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const range = await w.runAsync(['config', 'check'], { POSTHORN_DELIVERY_PORT: '70000' });
  t.is(range.code, 2);
  t.regex(range.stderr, /delivery\.port: .*\(set by POSTHORN_DELIVERY_PORT\)$/m);
  const number = await w.runAsync(['config', 'check'], { POSTHORN_LIMITS_DAILY_QUOTA: 'many' });
  t.is(number.code, 2);
  t.regex(number.stderr, /POSTHORN_LIMITS_DAILY_QUOTA \(limits\.daily_quota\): must be a number, not "many"/);
  t.false(number.stderr.includes('NaN'), number.stderr);
  const flag = await w.runAsync(['config', 'check'], { POSTHORN_WEBHOOKS_ALLOW_HTTP: 'yes' });
  t.is(flag.code, 2);
  t.regex(
    flag.stderr,
    /POSTHORN_WEBHOOKS_ALLOW_HTTP \(webhooks\.allow_http\): must be true or false, not "yes"/,
  );

  const file = path.join(w.dir, 'config/config.toml');
  writeFileSync(file, '[server]\nlisten = "127.0.0.1:8080"\npublic_url = = "x"\n');
  const toml = await w.runAsync(['config', 'check']);
  t.is(toml.code, 2);
  t.regex(toml.stderr, /not valid TOML at line 3, column \d+: /);
});
