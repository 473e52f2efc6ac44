/**
 * Dashboard in a real browser over 1 M messages: navigation to the messages page's first contentful paint and to interactive (first page of messages rendered), cold and warm cache, beside the history API call alone; and the assets' compressed size.
 *
 * Usage: scripts/bench dashboard-ui [--messages 1000000] [--runs 20] [--data DIR]
 *
 * The store is the one of `scripts/bench dashboard` (bench/history-data.ts): `--data DIR` keeps it
 * and reuses one either benchmark wrote with the same `--messages`. Headless Debian chromium
 * (playwright-core), on loopback. A cold run is a new browser context (empty cache, no cookies)
 * that signs in through the dashboard's sign-in route and then navigates to /messages; a warm run
 * navigates again in a context that has loaded the page before (assets from its cache; the API
 * calls are made afresh). "Interactive" is the app's `posthorn:messages-ready` mark: the first
 * page of messages is on screen with its controls live. Reference, alternating: the page's own
 * API call, `GET /v1/dashboard/emails?page_size=25` with a session token, over HTTP from Node.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext } from 'playwright-core';
import { validateConfig } from '../src/platform/config/load.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { defaultAssetsDir } from '../src/web/assets.js';
import { launchChromium } from '../test/helpers/browser.js';
import { writeHistoryMessages } from './history-data.js';
import { fmt, median } from './lib.js';
import { benchProject } from './project.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '20' },
    data: { type: 'string' },
  },
});
const messages = Number(values.messages);
const runs = Number(values.runs);
const EMAIL = 'bench@example.test';
const PASSWORD = 'bench password here';

const dataDir = values.data ?? mkdtempSync(path.join(tmpdir(), 'posthorn-bench-dashboard-ui-'));
const reuse = values.data !== undefined && existsSync(path.join(values.data, 'bench-ids.json'));
const config = validateConfig(
  {
    server: { listen: '127.0.0.1:0' },
    storage: { data_dir: dataDir, synchronous: 'normal' },
    smtp_in: { enabled: false, listen: '127.0.0.1:0' },
    delivery: { enabled: false },
    log: { level: 'warn', access_log: false },
    limits: { login_attempts_per_hour: 10_000 },
    accounts: { login_attempts_per_hour_per_ip: 10_000 },
  },
  'bench',
);
const log = createLogger('warn');

// 1. The store: a project, its owner with a password, and the messages written behind the server's back.
let server: Awaited<ReturnType<typeof startServer>>;
if (reuse) {
  server = await startServer(config, log);
} else {
  server = await startServer(config, log);
  const ids = await benchProject(server, { email: EMAIL, scopes: ['emails:read'], password: PASSWORD });
  const { key } = ids;
  await server.stop();
  const started = performance.now();
  writeHistoryMessages(dataDir, ids.projectId, messages);
  console.error(`wrote ${messages} messages in ${fmt(performance.now() - started)}`);
  server = await startServer(config, log);
  if (values.data !== undefined) writeFileSync(path.join(dataDir, 'bench-ids.json'), JSON.stringify({ key }));
}
{
  const started = performance.now();
  await server.services.history.indexer.drain();
  console.error(`history index ready in ${fmt(performance.now() - started)}`);
}
const url = server.url;

// 2. The assets as a browser receives them.
const assetsDir = path.join(defaultAssetsDir(), 'assets');
const assetFiles = readdirSync(assetsDir).filter((f) => !f.endsWith('.br') && !f.endsWith('.gz'));
const indexHtml = readFileSync(path.join(defaultAssetsDir(), 'index.html'));
const sizeOf = (f: string) => statSync(path.join(assetsDir, f)).size;
const assets = {
  raw: assetFiles.reduce((n, f) => n + sizeOf(f), 0) + indexHtml.length,
  br: assetFiles.reduce((n, f) => n + sizeOf(`${f}.br`), 0) + gzipSync(indexHtml).length,
  gzip: assetFiles.reduce((n, f) => n + sizeOf(`${f}.gz`), 0) + gzipSync(indexHtml).length,
};

// 3. Runs.
const signInHeaders = { 'X-Posthorn-CSRF': 'sign-in', Origin: url, 'content-type': 'application/json' };
async function signedInContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const res = await context.request.post(`${url}/v1/dashboard/web/sign-in/password`, {
    headers: signInHeaders,
    data: { email: EMAIL, password: PASSWORD },
  });
  if (res.status() !== 200) throw new Error(`sign-in: ${res.status()} ${await res.text()}`);
  return context;
}

interface Timing {
  fcp: number;
  ready: number;
  transferred: number;
}
async function visit(context: BrowserContext): Promise<Timing> {
  const page = await context.newPage();
  await page.goto(`${url}/messages`);
  await page.waitForSelector('tbody tr');
  // Polled through the debugging protocol: waitForFunction would eval in the page, which its CSP forbids.
  while (
    !(await page.evaluate<boolean>("performance.getEntriesByName('posthorn:messages-ready').length > 0"))
  )
    await page.waitForTimeout(10);
  const timing = await page.evaluate<Timing>(`({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    ready: performance.getEntriesByName('posthorn:messages-ready')[0].startTime,
    transferred: performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
      .reduce((n, e) => n + (e.transferSize || 0), 0),
  })`);
  await page.close();
  return timing;
}

const login = await fetch(`${url}/v1/auth/login-password`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
});
const token = ((await login.json()) as { token: string }).token;
const apiCall = () =>
  new Promise<number>((resolve, reject) => {
    const t0 = performance.now();
    http
      .get(
        `${url}/v1/dashboard/emails?page_size=25`,
        { headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${res.statusCode}`)),
          );
        },
      )
      .on('error', reject);
  });

const browser = await launchChromium();
const warmContext = await signedInContext(browser);
await visit(warmContext); // fills the warm context's cache
const cold: Timing[] = [];
const warm: Timing[] = [];
const reference: number[] = [];
for (let i = 0; i < 2; i++) {
  const context = await signedInContext(browser);
  await visit(context);
  await context.close();
  await apiCall();
}
for (let i = 0; i < runs; i++) {
  const context = await signedInContext(browser);
  cold.push(await visit(context));
  await context.close();
  warm.push(await visit(warmContext));
  reference.push(await apiCall());
}
await browser.close();

const p90 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))] as number;
const row = (label: string, xs: number[]) =>
  `${label.padEnd(34)} median ${median(xs).toFixed(0).padStart(5)} ms   p90 ${p90(xs).toFixed(0).padStart(5)} ms   max ${Math.max(
    ...xs,
  )
    .toFixed(0)
    .padStart(5)} ms`;
const apiMedian = median(reference);
console.log(
  `dashboard UI, ${messages} messages, ${runs} runs each, alternating cold / warm / API; headless chromium`,
);
console.log(
  row(
    'cold: first contentful paint',
    cold.map((c) => c.fcp),
  ),
);
console.log(
  row(
    'cold: interactive (messages shown)',
    cold.map((c) => c.ready),
  ),
);
console.log(
  row(
    'warm: first contentful paint',
    warm.map((c) => c.fcp),
  ),
);
console.log(
  row(
    'warm: interactive (messages shown)',
    warm.map((c) => c.ready),
  ),
);
console.log(row('reference: the page API call alone', reference));
console.log(
  `interactive / API call: cold ${(median(cold.map((c) => c.ready)) / apiMedian).toFixed(1)}x, warm ${(median(warm.map((c) => c.ready)) / apiMedian).toFixed(1)}x`,
);
console.log(
  `transferred on a cold visit (median): ${(median(cold.map((c) => c.transferred)) / 1024).toFixed(1)} KB; warm: ${(median(warm.map((c) => c.transferred)) / 1024).toFixed(1)} KB`,
);
console.log(
  `assets: ${(assets.raw / 1024).toFixed(1)} KB raw, ${(assets.br / 1024).toFixed(1)} KB brotli, ${(assets.gzip / 1024).toFixed(1)} KB gzip (${assetFiles.length} files + index.html)`,
);
await server.stop();
if (values.data === undefined) rmSync(dataDir, { recursive: true, force: true });
