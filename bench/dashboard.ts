/**
 * Dashboard message history over 1 M messages: the default page, a search by recipient and a sort by subject, p50 and p99 over HTTP, alternating with the send API's own list (`GET /v1/emails?limit=20`) as the reference.
 *
 * Usage: scripts/bench dashboard [--messages 1000000] [--runs 300] [--data DIR]
 *
 * `--data DIR` keeps the store in DIR and, when DIR already holds one from an earlier run with the
 * same `--messages`, measures it again without writing and indexing (the catch-up figure is then
 * not measured).
 *
 * The data: one project, `--messages` one-recipient live messages over the last 30 days, written
 * straight into `messages` and `message_recipients` (fast), each to its own address
 * (`user<i>@example<i % 1000>.test`), from one of five senders, with a subject from twenty
 * templates and a number; ~95 % delivered. Then the real server starts and its history indexer
 * catches up from nothing: that is the first figure (messages indexed per second, a store that
 * predates the index). Then a signed-in session asks, in turn, for the first page (default sort,
 * newest first), a search for one recipient chosen at random, and the first page sorted by
 * subject, and an API key lists the newest 20 through `GET /v1/emails`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { validateConfig } from '../src/platform/config/load.js';
import { databaseFile } from '../src/platform/db/database.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { writeHistoryMessages } from './history-data.js';
import { fmt, median } from './lib.js';
import { benchProject } from './project.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '300' },
    data: { type: 'string' },
  },
});
const messages = Number(values.messages);
const runs = Number(values.runs);
const PASSWORD = 'bench password here';

const dataDir = values.data ?? mkdtempSync(path.join(tmpdir(), 'posthorn-bench-dashboard-'));
const reuse = values.data !== undefined && existsSync(path.join(values.data, 'bench-ids.json'));
const config = validateConfig(
  {
    server: { listen: '127.0.0.1:0' },
    storage: { data_dir: dataDir, synchronous: 'normal' },
    smtp_in: { enabled: false, listen: '127.0.0.1:0' },
    delivery: { enabled: false },
    log: { level: 'warn', access_log: false },
    limits: { login_attempts_per_hour: 1000 },
  },
  'bench',
);
const log = createLogger('warn');

const writeMessages = (projectId: string) => writeHistoryMessages(dataDir, projectId, messages);

// 1. A project, its owner with a password, a key; then the messages behind the server's back.
let server: Awaited<ReturnType<typeof startServer>>;
let key: string;
let indexMs = Number.NaN;
if (reuse) {
  key = (JSON.parse(readFileSync(path.join(dataDir, 'bench-ids.json'), 'utf8')) as { key: string }).key;
  server = await startServer(config, log);
  await server.services.history.indexer.drain();
} else {
  server = await startServer(config, log);
  const ids = await benchProject(server, {
    email: 'bench@example.test',
    scopes: ['emails:read'],
    password: PASSWORD,
  });
  key = ids.key;
  await server.stop();
  let started = performance.now();
  writeMessages(ids.projectId);
  console.error(`wrote ${messages} messages in ${fmt(performance.now() - started)}`);
  // 2. The real server indexes them from nothing.
  started = performance.now();
  server = await startServer(config, log);
  await server.services.history.indexer.drain();
  indexMs = performance.now() - started;
  console.error(
    `history index caught up in ${fmt(indexMs)} (${Math.round(messages / (indexMs / 1000))} messages/s)`,
  );
  if (values.data !== undefined) writeFileSync(path.join(dataDir, 'bench-ids.json'), JSON.stringify({ key }));
}
const dbBytes = statSync(databaseFile(dataDir)).size;

const request = (method: string, url: string, token: string, body?: unknown) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(data ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
const login = await request('POST', `${server.url}/v1/auth/login-password`, '', {
  email: 'bench@example.test',
  password: PASSWORD,
});
const session = (JSON.parse(login.text) as { token: string }).token;

const timed = async (
  url: string,
  token: string,
  check: (body: { total?: number; data: unknown[] }) => boolean,
) => {
  const t0 = performance.now();
  const res = await request('GET', url, token);
  const ms = performance.now() - t0;
  if (res.status !== 200 || !check(JSON.parse(res.text)))
    throw new Error(`${url}: ${res.status} ${res.text.slice(0, 300)}`);
  return ms;
};
let seed = 7;
const randomUser = () => {
  seed = (seed * 48271) % 2147483647;
  const i = seed % messages;
  return `user${i}@example${i % 1000}.test`;
};
const cases = {
  page: () =>
    timed(`${server.url}/v1/dashboard/emails`, session, (b) => b.total === messages && b.data.length === 20),
  search: () =>
    timed(
      `${server.url}/v1/dashboard/emails?search=${encodeURIComponent(randomUser())}`,
      session,
      (b) => b.total === 1,
    ),
  subject: () =>
    timed(`${server.url}/v1/dashboard/emails?sort=subject&order=asc`, session, (b) => b.data.length === 20),
  reference: () => timed(`${server.url}/v1/emails?limit=20`, key, (b) => b.data.length === 20),
};
const samples: Record<keyof typeof cases, number[]> = { page: [], search: [], subject: [], reference: [] };
for (let i = 0; i < 10; i++) for (const run of Object.values(cases)) await run(); // warm-up
for (let i = 0; i < runs; i++) {
  for (const [name, run] of Object.entries(cases) as [keyof typeof cases, () => Promise<number>][]) {
    samples[name].push(await run());
  }
}
const p99 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))] as number;
console.log(
  `dashboard history, ${messages} messages, ${runs} runs each, alternating; database ${(dbBytes / 1e9).toFixed(2)} GB`,
);
if (!reuse)
  console.log(`index catch-up: ${fmt(indexMs)} (${Math.round(messages / (indexMs / 1000))} messages/s)`);
for (const [name, values] of Object.entries(samples)) {
  const label = {
    page: 'default page',
    search: 'recipient search',
    subject: 'sort by subject',
    reference: 'reference: GET /v1/emails?limit=20',
  }[name];
  console.log(`${label?.padEnd(36)} p50 ${median(values).toFixed(1)} ms   p99 ${p99(values).toFixed(1)} ms`);
}
await server.stop();
if (values.data === undefined) rmSync(dataDir, { recursive: true, force: true });
