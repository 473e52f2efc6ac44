/**
 * `scripts/test` stops the peers it started, however the run ends, and leaves running the ones it
 * found running. It runs from a copy of the scripts in a temporary checkout (the repository's
 * node_modules linked in, one trivial test file), with CLAMD_PORT and POSTHORN_PG_PORT on free
 * ports, so the clamd and the PostgreSQL cluster it starts are the test's own, real ones as the
 * suite's. (With the suite's ports, the copy's `peers stop` would stop the suite's own peers.)
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';

const root = path.resolve(import.meta.dirname, '../../..');

function checkout(t: ExecutionContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-scripts-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'scripts'));
  for (const script of ['test', 'peers', 'lib.sh'])
    copyFileSync(path.join(root, 'scripts', script), path.join(dir, 'scripts', script));
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  if (existsSync(path.join(root, '.node'))) symlinkSync(path.join(root, '.node'), path.join(dir, '.node'));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ type: 'module', ava: { files: ['dist/test/**/*.test.js'], workerThreads: false } }),
  );
  mkdirSync(path.join(dir, 'dist/test'), { recursive: true });
  // The copy's suite: one test that passes, so that the run's outcome is the scripts' alone.
  writeFileSync(
    path.join(dir, 'dist/test/one.test.js'),
    "import test from 'ava';\ntest('one', (t) => t.pass());\n",
  );
  return dir;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Ports {
  clamd: number;
  postgres: number;
}

async function freePorts(): Promise<Ports> {
  return { clamd: await freePort(), postgres: await freePort() };
}

function run(dir: string, script: string, args: readonly string[], ports: Ports) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CLAMD_PORT: String(ports.clamd),
      POSTHORN_PG_PORT: String(ports.postgres),
    };
    for (const key of Object.keys(env)) if (key.startsWith('AVA_') || key === 'NODE_OPTIONS') delete env[key];
    execFile(
      'bash',
      [path.join(dir, 'scripts', script), ...args],
      { cwd: dir, env, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test('scripts/test stops the clamd and the PostgreSQL it started once the tests ran', async (t) => {
  const dir = checkout(t);
  const ports = await freePorts();
  t.teardown(() => run(dir, 'peers', ['stop'], ports));
  const result = await run(dir, 'test', ['--no-build', 'dist/test/one.test.js'], ports);
  t.is(result.code, 0, result.out);
  t.regex(result.out, new RegExp(`clamd runs on 127\\.0\\.0\\.1:${ports.clamd}`));
  t.regex(result.out, new RegExp(`postgres runs on 127\\.0\\.0\\.1:${ports.postgres}`));
  t.regex(result.out, /1 passed, 0 failed/);
  t.regex(result.out, /clamd \(pid \d+\) stopped/);
  t.regex(result.out, /postgres \(pid \d+\) stopped/);
  t.false(await answers(ports.clamd), 'nothing listens on CLAMD_PORT any more');
  t.false(await answers(ports.postgres), 'nothing listens on POSTHORN_PG_PORT any more');
});

test('scripts/test leaves running the clamd and the PostgreSQL it found running', async (t) => {
  const dir = checkout(t);
  const ports = await freePorts();
  t.teardown(() => run(dir, 'peers', ['stop'], ports));
  const started = await run(dir, 'peers', [], ports);
  t.is(started.code, 0, started.out);
  const result = await run(dir, 'test', ['--no-build', 'dist/test/one.test.js'], ports);
  t.is(result.code, 0, result.out);
  t.regex(result.out, /already answers and scans/);
  t.regex(result.out, /postgres already answers/);
  t.notRegex(result.out, /stopped/);
  t.true(await answers(ports.clamd), 'the clamd started before still answers');
  t.true(await answers(ports.postgres), 'the PostgreSQL started before still answers');
});
