import test from 'ava';
import { workdir } from '../helpers/cli.js';
import { configFile, serveOnce } from '../helpers/config-file.js';

const warning = /warning: a stop may take (\d+) s .*TimeoutStopSec=30/;

test("config check warns, and passes, when a stop may come within 5 s of the unit's TimeoutStopSec", (t) => {
  const w = workdir(t);
  const check = (name: string, lines: string[]) =>
    w.run(['config', 'check', '--config', configFile(w, name, lines)]);
  const defaults = check('defaults.toml', ['[storage]']);
  t.is(defaults.code, 0, defaults.stderr);
  t.notRegex(defaults.stderr, /warning/);

  // 20 s of requests and SMTP sessions, then 5 s for a message being committed and 5 s for
  // received mail being processed: 30 s.
  const inbound = check('inbound.toml', ['[storage]', '[server]', 'shutdown_timeout = "20s"']);
  t.is(inbound.code, 0, 'a warning, not a failure: a drop-in may have raised the limit');
  t.regex(inbound.stdout, /Configuration is valid/);
  t.is(warning.exec(inbound.stderr)?.[1], '30', inbound.stderr);
  t.regex(
    inbound.stderr,
    /server\.shutdown_timeout = 20s \(\+ 5 s for an inbound message being committed, \+ 5 s for received mail being processed\)/,
  );
  t.regex(inbound.stderr, /delivery\.drain_timeout = 10s/);
  t.regex(inbound.stderr, /"\[Service\]" and "TimeoutStopSec=40"/);
  t.regex(inbound.stderr, /systemctl edit posthorn/);
  t.regex(inbound.stderr, /\/etc\/systemd\/system\/posthorn\.service\.d\/stop-timeout\.conf/);

  // Without inbound SMTP there is no commit to wait for: 20 s is 10 s short of the limit.
  const noInbound = check('no-inbound.toml', [
    '[storage]',
    '[server]',
    'shutdown_timeout = "20s"',
    '[smtp_in]',
    'enabled = false',
  ]);
  t.is(noInbound.code, 0, noInbound.stderr);
  t.notRegex(noInbound.stderr, /warning/);

  const drain = check('drain.toml', ['[storage]', '[delivery]', 'drain_timeout = "40s"']);
  t.is(drain.code, 0, drain.stderr);
  t.is(warning.exec(drain.stderr)?.[1], '40', drain.stderr);
  t.regex(drain.stderr, /"TimeoutStopSec=50"/);
});

test('serve logs the same warning when it boots', async (t) => {
  const w = workdir(t);
  const file = configFile(w, 'config.toml', [
    '[server]',
    'listen = "127.0.0.1:0"',
    '[smtp_in]',
    'listen = "127.0.0.1:0"',
    '[delivery]',
    'drain_timeout = "28s"',
    '[storage]',
  ]);
  const { code, log } = await serveOnce(w, file);
  t.is(code, 0, log);
  const line = log.split('\n').find((entry) => entry.includes('a stop may take'));
  t.truthy(line, log);
  const entry = JSON.parse(line ?? '{}');
  t.like(entry, { level: 40, stop_ms: 28_000 });
  t.regex(
    entry.msg,
    /^a stop may take 28 s .*delivery\.drain_timeout = 28s.*TimeoutStopSec=30.*"TimeoutStopSec=38"/,
  );
});
