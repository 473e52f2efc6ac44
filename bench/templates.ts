/**
 * Template rendering: a 1 KB and a 50 KB template rendered from the cached parse of their version, against the same render parsing the template every time, alternating; and a whole POST /v1/emails with the template through a real server, with and without the cache.
 *
 * Usage: scripts/bench templates [--rounds 15] [--renders 2000] [--requests 200] [--sizes 1,50] [--synchronous full|normal]
 *
 * Render: each round times `--renders` renders of the published version as a send makes them
 * (the parse cache's `get`, then `renderParsed`), the reference clearing the cache before each
 * one, so it parses the whole template as every send did before the cache. POST: one in-process
 * server (delivery and inbound SMTP off, per-key and per-recipient limits raised so they never
 * refuse), one keep-alive client sending `--requests` template sends one at a time; the reference
 * clears the server's parsed versions before each request. The two subjects swap order every
 * round. Times are wall-clock medians over rounds; CPU is this process's user + system time (the
 * client shares the process in the POST case), which a shared host disturbs less.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { validateConfig } from '../src/platform/config/load.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { createParsedCache } from '../src/templates/parsed-cache.js';
import { renderParsed } from '../src/templates/render.js';
import { median, parseSizes } from './lib.js';
import { benchProject } from './project.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    renders: { type: 'string', default: '2000' },
    requests: { type: 'string', default: '200' },
    sizes: { type: 'string', default: '1,50' },
    synchronous: { type: 'string', default: 'full' },
  },
});
const rounds = Number(values.rounds);
const renders = Number(values.renders);
const requests = Number(values.requests);
const sizes = parseSizes(values.sizes);
const synchronous = values.synchronous === 'normal' ? 'normal' : 'full';

/** An email template of about `kb` KB: a head with a style block, then order rows with three placeholders each. */
function template(kb: number) {
  const head =
    '<!doctype html><html><head><title>{{title}}</title><style>.a{color:red}@media (max-width:600px){.b{display:none}}</style></head><body><table>';
  const row =
    '<tr><td class="cell" style="padding:8px;font-family:Arial">Hello {{name}}, your order <a href="https://shop.test/o/{{order}}">#{{order}}</a> ships soon.</td></tr>\n';
  let html = head;
  while (html.length + row.length < kb * 1024 - 22) html += row;
  return {
    name: `Receipt ${kb} KB`,
    subject: 'Order {{order}} for {{name}}',
    html_body: `${html}</table></body></html>`,
    text_body: 'Hello {{name}}, your order {{order}} ships soon.',
    variables: ['title', 'name', 'order'],
  };
}
const variables = { title: 'Your receipt', name: 'Ann <Lee>', order: '12345' };

interface Sample {
  readonly ms: number;
  readonly cpuUs: number;
}
type Subject = 'cached' | 'uncached';

/** Per-operation wall time and CPU of `count` calls of `op`. */
async function timed(count: number, op: () => unknown): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < count; i++) await op();
  const ms = (performance.now() - start) / count;
  const used = process.cpuUsage(cpu);
  return { ms, cpuUs: (used.user + used.system) / count };
}

async function alternate(measure: (subject: Subject) => Promise<Sample>) {
  const samples: Record<Subject, Sample[]> = { cached: [], uncached: [] };
  for (let round = 0; round < rounds; round++) {
    const order: Subject[] = round % 2 ? ['uncached', 'cached'] : ['cached', 'uncached'];
    for (const subject of order) samples[subject].push(await measure(subject));
  }
  return samples;
}

function renderOnly(kb: number) {
  const t = template(kb);
  const content = { subject: t.subject, html_body: t.html_body, text_body: t.text_body };
  const cache = createParsedCache();
  const limits = { maxBodyBytes: 5 * 1024 * 1024 };
  const once = () => renderParsed(cache.get('tpv_bench', content), variables, limits);
  for (let i = 0; i < 200; i++) once(); // warm-up, both paths
  return alternate((subject) =>
    timed(renders, () => {
      if (subject === 'uncached') cache.clear();
      return once();
    }),
  );
}

async function startBenchServer() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-templates-'));
  const config = validateConfig(
    {
      server: { listen: '127.0.0.1:0' },
      storage: { data_dir: dataDir, synchronous },
      smtp_in: { enabled: false },
      delivery: { enabled: false },
      limits: { sends_per_minute_per_key: 100_000_000, sends_per_hour_per_recipient: 100_000_000 },
      log: { level: 'silent' },
    },
    'bench',
  );
  const server = await startServer(config, createLogger('silent'));
  const { key } = await benchProject(server, {
    email: 'ops@acme.test',
    scopes: ['full_access'],
    domain: 'acme.test',
  });
  const call = async (method: string, pathname: string, body?: unknown) => {
    const res = await fetch(`${server.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const stop = async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { server, call, stop };
}

async function wholeSend(bench: Awaited<ReturnType<typeof startBenchServer>>, kb: number) {
  const created = await bench.call('POST', '/v1/templates', { ...template(kb), slug: `receipt-${kb}` });
  if (created.status !== 201) throw new Error(`template: ${created.status} ${JSON.stringify(created.body)}`);
  await bench.call('POST', `/v1/templates/${created.body.id}/publish`);
  const parsed = bench.server.services.templates.parsedVersions;
  const body = {
    from: 'Acme <hello@acme.test>',
    to: ['ann@example.com'],
    template: `receipt-${kb}`,
    variables,
  };
  const send = async () => {
    const res = await bench.call('POST', '/v1/emails', body);
    if (res.status !== 202) throw new Error(`send: ${res.status} ${JSON.stringify(res.body)}`);
  };
  for (let i = 0; i < 50; i++) await send(); // warm-up
  return alternate((subject) =>
    timed(requests, () => {
      if (subject === 'uncached') parsed.clear();
      return send();
    }),
  );
}

function report(label: string, samples: Record<Subject, Sample[]>) {
  const ms = (subject: Subject) => median(samples[subject].map((s) => s.ms));
  const cpu = (subject: Subject) => median(samples[subject].map((s) => s.cpuUs));
  const ratios = samples.cached.map((s, i) => s.ms / (samples.uncached[i] as Sample).ms);
  const cpuRatios = samples.cached.map((s, i) => s.cpuUs / (samples.uncached[i] as Sample).cpuUs);
  const show = (value: number) => (value < 1 ? `${(value * 1000).toFixed(1)} µs` : `${value.toFixed(3)} ms`);
  console.log(
    `| ${label} | ${show(ms('cached'))} | ${show(ms('uncached'))} | ${median(ratios).toFixed(3)}x | ` +
      `${cpu('cached').toFixed(0)} µs | ${cpu('uncached').toFixed(0)} µs | ${median(cpuRatios).toFixed(3)}x |`,
  );
}

const results: Array<[string, Record<Subject, Sample[]>]> = [];
for (const kb of sizes) {
  const html = template(kb).html_body;
  const label = `render, ${kb} KB (${html.length} chars, ${html.split('{{').length - 1} placeholders)`;
  results.push([label, await renderOnly(kb)]);
  console.error(`${label}: done`);
}
const bench = await startBenchServer();
try {
  for (const kb of sizes) {
    results.push([`POST /v1/emails, ${kb} KB template`, await wholeSend(bench, kb)]);
    console.error(`POST ${kb} KB: done`);
  }
} finally {
  await bench.stop();
}

console.log(
  `${rounds} alternating rounds (order swapped each round), ${renders} renders / ${requests} sequential requests per round, ` +
    `synchronous=${synchronous}, node ${process.version}`,
);
console.log(
  '| subject | cached (median) | reference: parsed every time | ratio (median of rounds) | CPU/op cached | CPU/op reference | CPU ratio |',
);
console.log('|---|---|---|---|---|---|---|');
for (const [label, samples] of results) report(label, samples);
