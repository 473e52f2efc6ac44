import { chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { workdir } from '../helpers/cli.js';
import { testConfig } from '../helpers/server.js';

async function waitForHealth(url: string, deadline = Date.now() + 15_000): Promise<Response> {
  for (;;) {
    try {
      return await fetch(`${url}/health`);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

test('the first start writes config/config.toml and a 0600 master key, says where, serves, and stops on SIGTERM with exit 0', async (t) => {
  const w = workdir(t);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = w.spawn(['serve'], {
    POSTHORN_SERVER_LISTEN: `127.0.0.1:${port}`,
    POSTHORN_SMTP_IN_LISTEN: '127.0.0.1:0',
    POSTHORN_LOG_LEVEL: 'info',
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const res = await waitForHealth(`http://127.0.0.1:${port}`);
  t.is(res.status, 200);
  const config = path.join(w.dir, 'config/config.toml');
  t.true(existsSync(config));
  t.regex(stderr, new RegExp(`wrote the default configuration to ${config}`));
  const key = path.join(w.dir, 'data/master.key');
  t.is(statSync(key).mode & 0o777, 0o600);
  t.regex(stdout, /master key/);
  t.regex(readFileSync(config, 'utf8'), /\[server\]/);
  // bin/posthorn execs Node with the heap flags that keep RSS flat (same process ID).
  const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
  t.true(
    argv.includes('--max-semi-space-size=4') && argv.includes('--max-old-space-size=512'),
    argv.join(' '),
  );
  child.kill('SIGTERM');
  t.is(await exited, 0);
  t.regex(stdout, /posthorn stopped/);
});

test('POSTHORN_NODE_FLAGS replaces the Node flags and is not read as a configuration key', async (t) => {
  const w = workdir(t);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = w.spawn(['serve'], {
    POSTHORN_SERVER_LISTEN: `127.0.0.1:${port}`,
    POSTHORN_SMTP_IN_LISTEN: '127.0.0.1:0',
    POSTHORN_NODE_FLAGS: '--max-old-space-size=384',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const res = await waitForHealth(`http://127.0.0.1:${port}`);
  t.is(res.status, 200);
  const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
  t.true(argv.includes('--max-old-space-size=384'), argv.join(' '));
  t.false(argv.includes('--max-semi-space-size=4'), argv.join(' '));
  child.kill('SIGTERM');
  t.is(await exited, 0);
});

test('serve with an invalid config exits 2 naming the key and the reason', async (t) => {
  const w = workdir(t);
  const result = w.run(['serve'], { POSTHORN_SERVER_LISTEN: 'nowhere' });
  t.is(result.code, 2);
  t.regex(result.stderr, /server\.listen: must be host:port/);
});

test('a request in flight when SIGTERM arrives still gets its answer', async (t) => {
  const w = workdir(t);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = w.spawn(['serve'], {
    POSTHORN_SERVER_LISTEN: `127.0.0.1:${port}`,
    POSTHORN_SMTP_IN_LISTEN: '127.0.0.1:0',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitForHealth(`http://127.0.0.1:${port}`);
  const pending = fetch(`http://127.0.0.1:${port}/openapi.json`);
  child.kill('SIGTERM');
  const res = await pending.catch(() => undefined);
  // Either the request was answered before the listener closed, or it never reached it; never a reset mid-answer.
  if (res) t.is(res.status, 200);
  t.is(await exited, 0);
});

test('serve exits 2 naming the master key file when it is missing but the database holds sealed keys', async (t) => {
  const w = workdir(t);
  const dataDir = path.join(w.dir, 'data');
  const server = await startServer(testConfig(dataDir), createLogger('silent'));
  const { projectId } = await server.services.projects.bootstrap(
    { email: 'o@example.test', organization: 'O', project: 'P' },
    'test',
  );
  await server.services.domains.create(projectId, { name: 'example.com', region: 'eu' });
  await server.stop();
  const keyFile = path.join(dataDir, 'master.key');
  rmSync(keyFile);
  const result = w.run(['serve'], {
    POSTHORN_SERVER_LISTEN: '127.0.0.1:0',
    POSTHORN_SMTP_IN_LISTEN: '127.0.0.1:0',
  });
  t.is(result.code, 2, result.stderr);
  t.true(result.stderr.includes(`posthorn: the master key file ${keyFile} is missing`), result.stderr);
  t.false(existsSync(keyFile));
});

test('the data directory is 0700 and the database files 0600 under a loose umask, and an older looser data dir is tightened', async (t) => {
  const previous = process.umask(0o022);
  t.teardown(() => process.umask(previous));
  const w = workdir(t, { config: true });
  const data = path.join(w.dir, 'data');
  const db = path.join(data, 'posthorn.sqlite');
  const mode = (file: string) => statSync(file).mode & 0o777;
  t.is(w.run(['migrate']).code, 0);
  t.is(mode(data), 0o700);
  t.is(mode(db), 0o600);

  // As an older version left them under umask 022.
  chmodSync(data, 0o755);
  chmodSync(db, 0o644);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = w.spawn(['serve'], {
    POSTHORN_SERVER_LISTEN: `127.0.0.1:${port}`,
    POSTHORN_SMTP_IN_LISTEN: '127.0.0.1:0',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.is((await waitForHealth(`http://127.0.0.1:${port}`)).status, 200);
  t.is(mode(data), 0o700);
  for (const file of [db, `${db}-wal`, `${db}-shm`]) t.is(mode(file), 0o600, file);
  child.kill('SIGTERM');
  t.is(await exited, 0);
});
