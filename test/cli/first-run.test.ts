/**
 * A fresh install, run as a new user runs it: `config check` and `serve` say which keys still name
 * this host locally, and `serve` writes readable lines on a terminal and JSON otherwise.
 */
import { spawn } from 'node:child_process';
import test from 'ava';
import { BIN, workdir } from '../helpers/cli.js';
import { configFile, serveOnce } from '../helpers/config-file.js';

const LOCAL_KEYS = ['delivery.hostname', 'delivery.sending_ips', 'smtp_in.hostname', 'server.public_url'];

const quiet = [
  '[server]',
  'listen = "127.0.0.1:0"',
  '[storage]',
  '[delivery]',
  'enabled = false',
  '[smtp_in]',
  'enabled = false',
];

test('config check passes the defaults but names each key to set before sending', (t) => {
  const w = workdir(t, { config: true });
  const check = w.run(['config', 'check']);
  t.is(check.code, 0, check.stderr);
  const lines = check.stderr
    .split('\n')
    .filter((line) => line.startsWith('posthorn: to set before sending: '));
  t.deepEqual(
    lines.map((line) => /: to set before sending: (\S+)/.exec(line)?.[1]),
    LOCAL_KEYS,
    check.stderr,
  );
  t.regex(check.stderr, /delivery\.hostname is localhost \(this host\)/);
  t.regex(check.stderr, /server\.public_url names 127\.0\.0\.1 \(loopback\)/);
});

test('config check says nothing of the identity once the keys name public values', (t) => {
  const w = workdir(t);
  const file = configFile(w, 'public.toml', [
    '[server]',
    'public_url = "https://mail.posthorn.dev"',
    '[storage]',
    '[delivery]',
    'hostname = "mta.posthorn.dev"',
    'sending_ips = ["203.0.114.5"]',
    '[smtp_in]',
    'hostname = "mx.posthorn.dev"',
  ]);
  const check = w.run(['config', 'check', '--config', file]);
  t.is(check.code, 0, check.stderr);
  t.notRegex(check.stderr, /to set before sending|warning: (delivery|smtp_in|server)\./);
});

test('serve logs which keys to set before it can send to the internet', async (t) => {
  const w = workdir(t);
  const file = configFile(w, 'local.toml', quiet);
  const { code, log } = await serveOnce(w, file);
  t.is(code, 0, log);
  const records = log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; keys?: string[] });
  const summary = records.find((r) => r.msg.startsWith('not ready to send to the internet'));
  t.is(summary?.level, 40, 'a warning');
  t.deepEqual(summary?.keys, LOCAL_KEYS);
  t.true(records.some((r) => r.msg.startsWith('smtp_in.hostname is localhost')));
});

/** Runs serve under a pseudo-terminal (util-linux `script`) until it listens; its output. */
async function serveOnTerminal(
  t: import('ava').ExecutionContext,
  file: string,
  cwd: string,
): Promise<string> {
  const command = `${BIN} serve --config ${file}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd,
    env: { ...process.env, POSTHORN_LOG_LEVEL: 'info', TERM: 'xterm' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => child.kill('SIGTERM'));
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk;
      if (/posthorn listening on/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.kill('SIGTERM');
  await exited;
  return out;
}

test('on a terminal serve writes one readable line per record; log.format = "json" keeps JSON there', async (t) => {
  const w = workdir(t);
  const auto = await serveOnTerminal(t, configFile(w, 'auto.toml', quiet), w.dir);
  const listening = auto.split(/\r?\n/).find((line) => line.includes('posthorn listening on'));
  // e.g. "[2026-11-27 17:19:05.696] INFO: posthorn listening on http://127.0.0.1:40123 {...}", in colour.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes
  const plain = (listening ?? '').replace(/\x1b\[[0-9;]*m/g, '');
  t.regex(
    plain,
    /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: posthorn listening on http:\/\/127\.0\.0\.1:\d+/,
  );
  t.false(auto.includes('{"level":'), 'no JSON record on the terminal');

  const json = await serveOnTerminal(
    t,
    configFile(w, 'json.toml', [...quiet, '[log]', 'format = "json"']),
    w.dir,
  );
  t.regex(
    json,
    /\{"level":30,"time":"[^"]+","service":"posthorn","url":"http:\/\/127\.0\.0\.1:\d+","msg":"posthorn listening on/,
  );
});

test('log.format = "pretty" writes readable lines to a pipe too', async (t) => {
  const w = workdir(t);
  const { code, log } = await serveOnce(
    w,
    configFile(w, 'pretty.toml', [...quiet, '[log]', 'format = "pretty"']),
  );
  t.is(code, 0, log);
  t.regex(log, /^\[[\d-]+ [\d:.]+\] INFO: posthorn listening on http:\/\/127\.0\.0\.1:\d+/m);
  t.false(log.includes('{"level":'));
});
