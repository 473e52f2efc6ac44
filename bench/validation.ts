/**
 * Address validation: POST /v1/validation answered from the cache and uncached, against the floor of `scripts/bench api`, alternating.
 *
 * Usage: scripts/bench validation [--rounds 3] [--duration 15] [--connections 50] [--domains 1000]
 *   [--synchronous full|normal]   (the floor's durability, as in `scripts/bench api`; Posthorn's does not
 *   matter here, since a validation writes nothing)
 *
 * Each round runs three subjects, each in a fresh process on a fresh data dir, with wrk after a
 * short warm-up: the floor of `scripts/bench api` (a minimal Koa + better-sqlite3 server inserting
 * one row per POST of the send body), Posthorn validating one address over
 * and over (every answer after the first is `cached: true`), and Posthorn validating a new address
 * on every request (`cached: false`: syntax, disposable, role, typo, the project's suppression list
 * and the domain's MX and MX host address). Uncached addresses spread over `--domains` domains
 * served by a real DNS server on loopback; the warm-up asks each domain once, so the measured
 * window reads MX answers from the resolver's own cache (TTL 300 s), as a busy server does.
 * Posthorn runs with its defaults except delivery and inbound SMTP off and the validation rate
 * limit off. Target: cached ≥ 0.8× the floor's throughput.
 *
 * Beside each rate, the CPU time of the server's main thread (its event loop, where both servers do
 * all their work) per request answered, read from /proc: a CPU-bound server's rate is the inverse
 * of it, and unlike the rate it holds when other processes take turns on the host's cores.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { validateConfig } from '../src/platform/config/load.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { startDnsServer } from '../test/helpers/dns-server.js';
import { mainThreadCpuMs } from './delivery/proc.js';
import { floorServerSource, sendBody } from './floor.js';
import {
  freePort,
  median,
  runWrk,
  spawnQuiet,
  stopChild,
  type WrkResult,
  waitReady,
  writeServeToml,
  wrkOptions,
  wrkSettings,
} from './lib.js';
import { benchProject } from './project.js';

const { values } = parseArgs({
  options: {
    ...wrkOptions(),
    domains: { type: 'string', default: '1000' },
  },
});
const { rounds, duration, connections, warmup, synchronous } = wrkSettings(values);
const domains = Number(values.domains);
const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/posthorn');

type Subject = 'floor' | 'cached' | 'uncached';
interface Result extends WrkResult {
  /** CPU time of the server's main thread (its event loop) per request answered, in µs. */
  readonly cpuUs: number;
}

const dns = await startDnsServer();
for (let i = 0; i < domains; i++) {
  dns.set(`d${i}.bench.test`, 'MX', [{ preference: 10, exchange: `mx.d${i}.bench.test` }]);
  dns.set(`mx.d${i}.bench.test`, 'A', ['127.0.0.1']);
}
dns.set('cached.bench.test', 'MX', [{ preference: 10, exchange: 'mx.cached.bench.test' }]);
dns.set('mx.cached.bench.test', 'A', ['127.0.0.1']);

/** The wrk script of a subject; `phase` keeps warm-up and measured addresses apart. */
function wrkScript(subject: Subject, key: string, phase: string): string {
  const head = `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer ${key}"\n`;
  if (subject === 'floor') return `${head}wrk.body = ${JSON.stringify(sendBody)}\n`;
  if (subject === 'cached') return `${head}wrk.body = '{"email":"ann.lee@cached.bench.test"}'\n`;
  return `${head}
local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
local n = 0
function request()
  n = n + 1
  local body = string.format('{"email":"u%s%d-%d@d%d.bench.test"}', "${phase}", tid, n, n % ${domains})
  return wrk.format(nil, nil, nil, body)
end
`;
}

async function load(url: string, subject: Subject, key: string, seconds: number, dir: string, phase: string) {
  const script = path.join(dir, `${phase}.lua`);
  writeFileSync(script, wrkScript(subject, key, phase));
  const pathname = subject === 'floor' ? '/v1/emails' : '/v1/validation';
  return runWrk(`${url}${pathname}`, { connections, seconds, script });
}

/** A fresh data dir with a project and a key with `validation:use`; the config file for serve. */
async function preparePosthorn(dataDir: string, port: number): Promise<{ key: string; config: string }> {
  const settings = {
    // The setup server only seeds the data dir: any free port, never the default 8080.
    server: { listen: '127.0.0.1:0' },
    storage: { data_dir: dataDir },
    smtp_in: { enabled: false },
    delivery: { enabled: false },
  };
  const server = await startServer(validateConfig(settings, 'bench'), createLogger('silent'));
  const { key } = await benchProject(server, { email: 'ops@acme.test', scopes: ['validation:use'] });
  await server.stop();
  const toml = writeServeToml(dataDir, port, {
    more: ['[dns]', `servers = ["${dns.address}"]`, '[validation]', 'requests_per_minute = 0'],
  });
  return { key, config: toml };
}

/** Checks that the subject answers as described before it is measured. */
async function sanityCheck(url: string, key: string): Promise<void> {
  const ask = async (email: string) => {
    const res = await fetch(`${url}/v1/validation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    return (await res.json()) as { verdict: string; cached: boolean };
  };
  const first = await ask('check@d1.bench.test');
  const second = await ask('check@d1.bench.test');
  if (first.verdict !== 'deliverable' || first.cached || !second.cached)
    throw new Error(`unexpected validation answers: ${JSON.stringify([first, second])}`);
}

async function measure(subject: Subject): Promise<Result> {
  const dir = mkdtempSync(path.join(tmpdir(), `posthorn-bench-validation-${subject}-`));
  const port = await freePort();
  try {
    let key = 'none';
    let child: ReturnType<typeof spawnQuiet>;
    if (subject === 'floor') {
      child = spawnQuiet(
        process.execPath,
        ['-e', floorServerSource(synchronous)],
        { ...process.env, PORT: String(port), FLOOR_DB: path.join(dir, 'floor.sqlite') },
        root,
      );
    } else {
      const prepared = await preparePosthorn(dir, port);
      key = prepared.key;
      child = spawnQuiet(bin, ['serve', '--config', prepared.config], { ...process.env }, root);
    }
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitReady(`${url}/health`, performance.now());
      if (subject !== 'floor') await sanityCheck(url, key);
      if (warmup > 0) await load(url, subject, key, warmup, dir, 'w');
      const pid = child.pid as number;
      const cpuBefore = mainThreadCpuMs(pid);
      const result = await load(url, subject, key, duration, dir, 'm');
      return { ...result, cpuUs: ((mainThreadCpuMs(pid) - cpuBefore) * 1000) / result.requests };
    } finally {
      await stopChild(child);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const samples: Record<Subject, Result[]> = { floor: [], cached: [], uncached: [] };
for (let round = 1; round <= rounds; round++) {
  for (const subject of ['floor', 'cached', 'uncached'] as const) {
    const result = await measure(subject);
    samples[subject].push(result);
    console.error(
      `round ${round} ${subject}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${result.errors}, server CPU ${result.cpuUs.toFixed(0)} µs/request`,
    );
  }
}
await dns.stop();

const med = (list: Result[], field: keyof Result) => median(list.map((r) => r[field]));
const floorRps = med(samples.floor, 'rps');
console.log(
  `POST /v1/validation vs the floor of scripts/bench api, ${connections} connections, ${duration} s per run, ` +
    `${rounds} alternating rounds, wrk -t2, ${domains} domains, floor synchronous=${synchronous}, node ${process.version}`,
);
const floorCpu = med(samples.floor, 'cpuUs');
console.log(
  "| subject | req/s (median) | p50 | p99 | errors | throughput ratio to floor | server CPU per request (median) | floor's CPU ÷ subject's |",
);
console.log('|---|---|---|---|---|---|---|---|');
const names: Record<Subject, string> = {
  floor: 'floor (scripts/bench api)',
  cached: 'validation, cached',
  uncached: 'validation, uncached',
};
for (const subject of ['floor', 'cached', 'uncached'] as const) {
  const list = samples[subject];
  const rps = med(list, 'rps');
  console.log(
    `| ${names[subject]} | ${rps.toFixed(0)} | ${med(list, 'p50').toFixed(1)} ms | ${med(list, 'p99').toFixed(1)} ms | ` +
      `${list.reduce((a, r) => a + r.errors, 0)} | ${(rps / floorRps).toFixed(2)}x | ` +
      `${med(list, 'cpuUs').toFixed(0)} µs | ${(floorCpu / med(list, 'cpuUs')).toFixed(2)}x |`,
  );
}
