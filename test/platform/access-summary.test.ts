/**
 * The access log of high-volume routes (tracking hits): answered requests are counted into one
 * line per route and window, and a failed request keeps its own line, so an operator still sees
 * every error.
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { z } from 'zod';
import { AccessSummary } from '../../src/platform/http/access-summary.js';
import { createApp } from '../../src/platform/http/app.js';
import { AppError } from '../../src/platform/http/errors.js';
import { defineRoute } from '../../src/platform/http/route.js';
import { createLogger } from '../../src/platform/log.js';

const hits = defineRoute({
  method: 'get',
  path: '/v1/hits/{n}',
  summary: 'test: a hit, a 404 for n = 0',
  tag: 'Test',
  auth: 'none',
  summarizedAccess: true,
  params: z.strictObject({ n: z.string() }),
  responses: { 200: { description: 'ok' }, 404: { description: 'unknown' } },
  handler: (req) => {
    if (req.params.n === '0') throw new AppError('not_found', 'No such hit.');
    return { status: 200, body: { n: req.params.n } };
  },
});

const other = defineRoute({
  method: 'get',
  path: '/v1/other',
  summary: 'test: an ordinary route',
  tag: 'Test',
  auth: 'none',
  responses: { 200: { description: 'ok' } },
  handler: () => ({ status: 200, body: {} }),
});

async function start(t: ExecutionContext, windowMs: number) {
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line));
      callback();
    },
  });
  const log = createLogger('info', sink);
  const summary = new AccessSummary(log, windowMs);
  const app = createApp({
    log,
    accessLog: true,
    accessSummary: summary,
    maxBodyBytes: 1024,
    trustProxy: false,
    routes: [hits, other],
    authenticators: {},
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logs, summary };
}

test('answered hits are one line per route with their count; a failed hit and other routes keep their own line', async (t) => {
  const { url, logs, summary } = await start(t, 60_000);
  for (const n of ['1', '2', '3', '4', '5']) t.is((await fetch(`${url}/v1/hits/${n}`)).status, 200);
  t.is((await fetch(`${url}/v1/hits/0`)).status, 404);
  t.is((await fetch(`${url}/v1/other`)).status, 200);

  const lines = logs.filter((l) => l.msg === 'request');
  t.is(lines.length, 2, 'the 404 and the ordinary route only');
  t.like(lines[0], { method: 'GET', route: '/v1/hits/:n', status: 404 });
  t.like(lines[1], { method: 'GET', route: '/v1/other', status: 200 });
  t.is(logs.filter((l) => l.msg === 'requests').length, 0, 'nothing summarized before the window ends');

  summary.flush(); // as the server's stop does
  const summaries = logs.filter((l) => l.msg === 'requests');
  t.is(summaries.length, 1);
  t.like(summaries[0], { level: 30, method: 'GET', route: '/v1/hits/:n', requests: 5, statuses: { 200: 5 } });
  t.is(typeof summaries[0]?.max_ms, 'number');
  summary.flush();
  t.is(logs.filter((l) => l.msg === 'requests').length, 1, 'a window without requests writes nothing');
});

test('the window writes its line on its own when traffic stops', async (t) => {
  const { url, logs } = await start(t, 100);
  t.is((await fetch(`${url}/v1/hits/7`)).status, 200);
  t.is((await fetch(`${url}/v1/hits/8`)).status, 200);
  for (let waited = 0; waited < 3000 && !logs.some((l) => l.msg === 'requests'); waited += 50)
    await sleep(50);
  t.like(
    logs.find((l) => l.msg === 'requests'),
    { route: '/v1/hits/:n', requests: 2, statuses: { 200: 2 } },
  );
});
