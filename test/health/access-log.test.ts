import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import { validateConfig } from '../../src/platform/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';

/** The real server on loopback, its log written at `level` and captured as parsed lines. */
async function serverLogging(t: ExecutionContext, level: string) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'posthorn-test-'));
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      callback();
    },
  });
  const server = await startServer(testConfig(dataDir), createLogger(level, sink));
  t.teardown(async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const requestLines = () => lines.filter((line) => line.msg === 'request');
  return { url: server.url, requestLines };
}

const defaultLevel = validateConfig({}, 'defaults').log.level;

test('a health check leaves no access-log line at the default level, while an API request does', async (t) => {
  t.is(defaultLevel, 'info');
  const { url, requestLines } = await serverLogging(t, defaultLevel);
  t.is((await fetch(`${url}/health`)).status, 200);
  t.is((await fetch(`${url}/health`, { method: 'HEAD' })).status, 200);
  t.is((await fetch(`${url}/v1/domains`)).status, 401);
  t.is((await fetch(`${url}/openapi.json`)).status, 200);
  t.deepEqual(
    requestLines().map((line) => [line.method, line.route, line.status]),
    [
      ['GET', '/v1/domains', 401],
      ['GET', '/openapi.json', 200],
    ],
  );
});

test('at debug the health check is logged, at debug level', async (t) => {
  const { url, requestLines } = await serverLogging(t, 'debug');
  t.is((await fetch(`${url}/health`)).status, 200);
  t.like(requestLines(), [{ level: 20, method: 'GET', route: '/health', status: 200 }]);
});

test("a tracking request's access-log line has the client's address truncated, as tracking stores it", async (t) => {
  const { url, requestLines } = await serverLogging(t, defaultLevel);
  t.is((await fetch(`${url}/v1/track/open/not-a-token`)).status, 404);
  t.is((await fetch(`${url}/v1/domains`)).status, 401);
  t.deepEqual(
    requestLines().map((line) => [line.route, line.ip]),
    [
      ['/v1/track/open/:token', '127.0.0.0/24'],
      ['/v1/domains', '127.0.0.1'],
    ],
  );
});
