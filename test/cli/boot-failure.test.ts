/**
 * A boot that fails after the HTTP API listens (an engine that cannot start) stops what it
 * started, so the process exits instead of staying up half-started. `serve` checks the config and
 * the host first; this reaches the engines with a config those checks would refuse, through the
 * same startServer that `serve` runs, in a process of its own.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';

const dist = path.resolve(import.meta.dirname, '../../src');

const script = `
import { startServer } from ${JSON.stringify(path.join(dist, 'server.js'))};
import { validateConfig } from ${JSON.stringify(path.join(dist, 'platform/config/load.js'))};
import { createLogger } from ${JSON.stringify(path.join(dist, 'platform/log.js'))};
const config = validateConfig(JSON.parse(process.argv[1]), 'test');
try {
  await startServer(config, createLogger('silent'));
  console.log('started');
} catch (error) {
  console.log('failed', error.code);
}
`;

test('an engine that cannot start closes the HTTP API and the engines started before it, and the process exits', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'posthorn-boot-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = {
    server: { listen: '127.0.0.1:0' },
    storage: { data_dir: dataDir, synchronous: 'normal' },
    smtp_in: { enabled: false },
    // Delivery starts after the scheduler, webhooks and retention, and fails reading this file.
    delivery: { enabled: true, tls_ca_file: path.join(dataDir, 'missing-ca.pem') },
    log: { level: 'silent' },
  };
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(timer);
  t.is(code, 0, `the process exited by itself: ${output}`);
  t.regex(output, /failed ENOENT/);
});
