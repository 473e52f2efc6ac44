/**
 * Send API throughput: POST /v1/emails (one recipient, 5 KB HTML, verified domain) at 50 connections, against a minimal Koa + better-sqlite3 floor, alternating.
 *
 * Usage: scripts/bench api [--rounds 3] [--duration 30] [--connections 50] [--synchronous full|normal]
 *   [--baseline <dir>]   (another build's tree, e.g. main's from `git archive`: its Posthorn runs too,
 *                         alternating with this build's, for a before-and-after in one run)
 *
 * Each round measures the floor and Posthorn, each on a fresh data dir, with the same load tool
 * (wrk from Debian when installed, else autocannon from npm) after a short warm-up. The floor
 * reads the body, parses the same JSON and inserts one row per request into SQLite in WAL mode with
 * the same `synchronous` setting as Posthorn. Posthorn runs with its defaults except: delivery and
 * inbound SMTP off (no MX to talk to; they are not the API), and the per-key and per-recipient
 * limits raised so they are checked on every request but never refuse one.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { validateConfig } from '../src/platform/config/load.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { floorServerSource, sendBody } from './floor.js';
import {
  freePort,
  median,
  spawnQuiet,
  stopChild,
  waitReady,
  writeServeToml,
  wrkOptions,
  wrkSettings,
} from './lib.js';
import { benchProject } from './project.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    ...wrkOptions('30'),
    baseline: { type: 'string' },
  },
});
const baseline = values.baseline === undefined ? undefined : path.resolve(values.baseline);
const { rounds, duration, connections, warmup, synchronous } = wrkSettings(values);
const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/posthorn');

interface Result {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

const body = sendBody;
const floorSource = floorServerSource(synchronous);

/** A fresh data dir with a project, a live key and a verified domain; returns the key. */
async function preparePosthorn(dataDir: string, port: number): Promise<{ key: string; config: string }> {
  const settings = {
    server: { listen: `127.0.0.1:${port}` },
    storage: { data_dir: dataDir, synchronous },
    smtp_in: { enabled: false },
    delivery: { enabled: false },
    limits: { sends_per_minute_per_key: 100_000_000, sends_per_hour_per_recipient: 100_000_000 },
  };
  const config = validateConfig(settings, 'bench');
  const server = await startServer(
    { ...config, server: { ...config.server, listen: '127.0.0.1:0' } },
    createLogger('silent'),
  );
  const { key } = await benchProject(server, {
    email: 'ops@acme.test',
    scopes: ['emails:send'],
    domain: 'acme.test',
  });
  await server.stop();
  const toml = writeServeToml(dataDir, port, {
    synchronous,
    more: ['[limits]', 'sends_per_minute_per_key = 100000000', 'sends_per_hour_per_recipient = 100000000'],
  });
  return { key, config: toml };
}

async function hasWrk(): Promise<boolean> {
  try {
    await run('wrk', ['--version']);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== 'ENOENT';
  }
}

async function load(
  url: string,
  key: string,
  seconds: number,
  dir: string,
  useWrk: boolean,
): Promise<Result> {
  if (useWrk) {
    const script = path.join(dir, 'post.lua');
    writeFileSync(
      script,
      `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer ${key}"\nwrk.body = ${JSON.stringify(body)}\n`,
    );
    const { stdout } = await run(
      'wrk',
      ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, `${url}/v1/emails`],
      {
        maxBuffer: 1 << 20,
      },
    );
    const ms = (label: string) => {
      const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(stdout);
      if (!m) throw new Error(`wrk output without ${label}%:\n${stdout}`);
      const value = Number(m[1]);
      return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
    };
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN);
    const errors =
      Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0) +
      Number(
        /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
          .exec(stdout)
          ?.slice(1)
          .reduce((a, b) => a + Number(b), 0) ?? 0,
      );
    return { rps, p50: ms('50'), p99: ms('99'), errors };
  }
  // autocannon ships no types; this is the part of its result the benchmark reads.
  type Autocannon = (options: Record<string, unknown>) => Promise<{
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  }>;
  const autocannon = ((await import('autocannon' as string)) as { default: Autocannon }).default;
  const result = await autocannon({
    url: `${url}/v1/emails`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

type Subject = 'floor' | 'posthorn' | 'baseline';

async function measure(subject: Subject, useWrk: boolean): Promise<Result> {
  const dir = mkdtempSync(path.join(tmpdir(), `posthorn-bench-api-${subject}-`));
  const port = await freePort();
  try {
    let key = 'none';
    const child =
      subject === 'floor'
        ? spawnQuiet(
            process.execPath,
            ['-e', floorSource],
            { ...process.env, PORT: String(port), FLOOR_DB: path.join(dir, 'floor.sqlite') },
            root,
          )
        : await (async () => {
            const prepared = await preparePosthorn(dir, port);
            key = prepared.key;
            // As an operator runs it: bin/posthorn, with the Node flags it ships.
            const tree = subject === 'baseline' && baseline !== undefined ? baseline : root;
            return spawnQuiet(
              subject === 'baseline' ? path.join(tree, 'bin/posthorn') : bin,
              ['serve', '--config', prepared.config],
              { ...process.env, POSTHORN_CONFIG: prepared.config },
              tree,
            );
          })();
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitReady(`${url}/health`, performance.now());
      if (warmup > 0) await load(url, key, warmup, dir, useWrk);
      return await load(url, key, duration, dir, useWrk);
    } finally {
      await stopChild(child);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const useWrk = await hasWrk();
const subjects: Subject[] =
  baseline === undefined ? ['floor', 'posthorn'] : ['floor', 'baseline', 'posthorn'];
const samples: Partial<Record<Subject, Result[]>> = Object.fromEntries(subjects.map((s) => [s, []]));
for (let round = 1; round <= rounds; round++) {
  for (const subject of subjects) {
    const result = await measure(subject, useWrk);
    samples[subject]?.push(result);
    console.error(
      `round ${round} ${subject}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${result.errors}`,
    );
  }
}

const med = (list: Result[], field: keyof Result) => median(list.map((r) => r[field]));
const floorSamples = samples.floor ?? [];
const floor = {
  rps: med(floorSamples, 'rps'),
  p50: med(floorSamples, 'p50'),
  p99: med(floorSamples, 'p99'),
};
console.log(
  `POST /v1/emails, ${connections} connections, ${duration} s per run, ${rounds} alternating rounds, ` +
    `${useWrk ? 'wrk -t2' : 'autocannon'}, synchronous=${synchronous}, node ${process.version}` +
    (baseline === undefined ? '' : `, baseline ${baseline}`),
);
console.log('| subject | accepted/s (median) | p50 | p99 | errors | throughput ratio | p99 ratio |');
console.log('|---|---|---|---|---|---|---|');
for (const [name, list] of Object.entries(samples) as [Subject, Result[]][]) {
  const rps = med(list, 'rps');
  const p99 = med(list, 'p99');
  console.log(
    `| ${name} | ${rps.toFixed(0)} | ${med(list, 'p50').toFixed(1)} ms | ${p99.toFixed(1)} ms | ${list.reduce((a, r) => a + r.errors, 0)} | ` +
      `${(rps / floor.rps).toFixed(2)}x | ${(p99 / floor.p99).toFixed(2)}x |`,
  );
}
