/**
 * Tracking hits: GET of the open pixel and of tracked links (302) with a browser's agent, against the floor of `scripts/bench api`, alternating.
 *
 * Usage: scripts/bench tracking [--rounds 3] [--duration 15] [--connections 50] [--messages 500]
 *   [--synchronous full|normal]   (the floor's durability and Posthorn's `storage.synchronous`)
 *   [--baseline <dir>]   (another build's tree, e.g. main's from `git archive`: its opens and clicks
 *                         run too, alternating with this build's, for a before-and-after in one run)
 *   [--kinds opens,clicks]   (which hits to measure)
 *
 * Each round runs three subjects, each in a fresh process on a fresh data dir, with wrk after a
 * short warm-up: the floor (a minimal Koa + better-sqlite3 server inserting one row per POST of
 * the send body), Posthorn answering opens (the pixel of one of `--messages` sent messages, a
 * different one on each request) and Posthorn answering clicks (a tracked link of one of them).
 * Every hit is recorded as in production: classified, written in batches with its
 * `email.opened`/`email.clicked` event. After each Posthorn run the store is read: the hits
 * recorded must equal the requests answered (warm-up included), or the run fails. Target:
 * ≥ 1.0× the floor's throughput and p99 ≤ 10 ms.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { validateConfig } from '../src/platform/config/load.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { clickToken, openToken, trackingTokenKey } from '../src/tracking/token.js';
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
    ...wrkOptions(),
    messages: { type: 'string', default: '500' },
    baseline: { type: 'string' },
    kinds: { type: 'string', default: 'opens,clicks' },
  },
});
const { rounds, duration, connections, warmup, synchronous } = wrkSettings(values);
const messageCount = Number(values.messages);
const root = path.resolve(import.meta.dirname, '../..');
const baseline = values.baseline === undefined ? undefined : path.resolve(values.baseline);
const kinds = values.kinds.split(',').filter((k): k is 'opens' | 'clicks' => k === 'opens' || k === 'clicks');
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

type Kind = 'opens' | 'clicks';
type Subject = 'floor' | Kind | `${Kind} (baseline)`;
const kindOf = (subject: Exclude<Subject, 'floor'>): Kind =>
  subject.startsWith('opens') ? 'opens' : 'clicks';
interface Result {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly requests: number;
}

/** The wrk script: the floor posts the send body; Posthorn GETs the paths in turn. */
function wrkScript(subject: Subject, paths: readonly string[]): string {
  if (subject === 'floor')
    return `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = ${JSON.stringify(sendBody)}\n`;
  return `wrk.headers["User-Agent"] = "${CHROME}"
local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}
local n = 0
function request()
  n = n + 1
  return wrk.format("GET", paths[(n % #paths) + 1])
end
`;
}

async function load(url: string, subject: Subject, paths: readonly string[], seconds: number, dir: string) {
  const script = path.join(dir, 'load.lua');
  writeFileSync(script, wrkScript(subject, paths));
  const target = subject === 'floor' ? `${url}/v1/emails` : url;
  const { stdout } = await run(
    'wrk',
    ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, target],
    { maxBuffer: 1 << 20 },
  );
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(stdout);
    if (!m) throw new Error(`wrk output without ${label}%:\n${stdout}`);
    const value = Number(m[1]);
    return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
  };
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? Number.NaN);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const errors =
    Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0) +
    (socket?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0);
  return { rps, p50: ms('50'), p99: ms('99'), errors, requests };
}

/** A fresh data dir with `--messages` sent messages; the config file for serve and the hit paths. */
async function preparePosthorn(
  dataDir: string,
  port: number,
  subject: 'opens' | 'clicks',
): Promise<{ config: string; paths: string[] }> {
  const settings = {
    // The setup server only seeds the data dir: any free port, never the default 8080.
    server: { listen: '127.0.0.1:0' },
    storage: { data_dir: dataDir, synchronous },
    smtp_in: { enabled: false },
    delivery: { enabled: false },
    limits: { sends_per_minute_per_key: 100_000_000, sends_per_hour_per_recipient: 100_000_000 },
  };
  const server = await startServer(validateConfig(settings, 'bench'), createLogger('silent'));
  const { key } = await benchProject(server, {
    email: 'ops@acme.test',
    scopes: ['emails:send'],
    domain: 'acme.test',
  });
  const tokenKey = trackingTokenKey(server.kernel.masterKey);
  const paths: string[] = [];
  for (let i = 0; i < messageCount; i++) {
    const res = await fetch(`${server.url}/v1/emails`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...JSON.parse(sendBody), to: [`reader${i}@example.com`] }),
    });
    const { id } = (await res.json()) as { id: string };
    paths.push(
      subject === 'opens'
        ? `/v1/track/open/${openToken(tokenKey, id)}`
        : `/v1/track/click/${clickToken(tokenKey, id, { index: 0, count: 1, url: `https://acme.test/orders/${i}?utm_source=receipt` })}`,
    );
  }
  await server.stop();
  const toml = writeServeToml(dataDir, port, { synchronous });
  return { config: toml, paths };
}

async function measure(subject: Subject): Promise<Result> {
  const dir = mkdtempSync(path.join(tmpdir(), `posthorn-bench-tracking-${subject.replace(/\W+/g, '-')}-`));
  const port = await freePort();
  try {
    let paths: string[] = [];
    let child: ReturnType<typeof spawnQuiet>;
    if (subject === 'floor') {
      child = spawnQuiet(
        process.execPath,
        ['-e', floorServerSource(synchronous)],
        { ...process.env, PORT: String(port), FLOOR_DB: path.join(dir, 'floor.sqlite') },
        root,
      );
    } else {
      const prepared = await preparePosthorn(dir, port, kindOf(subject));
      paths = prepared.paths;
      const tree = subject.endsWith('(baseline)') && baseline !== undefined ? baseline : root;
      child = spawnQuiet(
        path.join(tree, 'bin/posthorn'),
        ['serve', '--config', prepared.config],
        { ...process.env },
        tree,
      );
    }
    let answered = 0;
    let result: Result;
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitReady(`${url}/health`, performance.now());
      if (warmup > 0) answered += (await load(url, subject, paths, warmup, dir)).requests;
      result = await load(url, subject, paths, duration, dir);
      answered += result.requests;
    } finally {
      await stopChild(child);
    }
    if (subject !== 'floor') {
      const db = new SQLite(path.join(dir, 'posthorn.sqlite'), { readonly: true });
      const recorded = (db.prepare('select count(*) as n from tracking_hits').get() as { n: number }).n;
      const events = (
        db
          .prepare(`select count(*) as n from events where type in ('email.opened', 'email.clicked')`)
          .get() as {
          n: number;
        }
      ).n;
      db.close();
      // wrk counts the requests it saw answered; those in flight when each of its two runs stopped
      // (at most one per connection) are answered and recorded but not counted.
      if (recorded < answered || recorded - answered > 2 * connections || events !== recorded)
        throw new Error(
          `${subject}: ${answered} requests answered, ${recorded} hits and ${events} events recorded`,
        );
      console.error(
        `  ${subject}: ${recorded} hits recorded with their events for ${answered} requests answered`,
      );
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const subjects: Subject[] = [
  'floor',
  ...kinds.flatMap((kind): Subject[] => (baseline === undefined ? [kind] : [`${kind} (baseline)`, kind])),
];
const samples = Object.fromEntries(subjects.map((s) => [s, [] as Result[]])) as Record<Subject, Result[]>;
for (let round = 1; round <= rounds; round++) {
  for (const subject of subjects) {
    const result = await measure(subject);
    samples[subject].push(result);
    console.error(
      `round ${round} ${subject}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${result.errors}`,
    );
  }
}

const med = (list: Result[], field: keyof Result) => median(list.map((r) => r[field]));
const floorRps = med(samples.floor, 'rps');
console.log(
  `Tracking hits vs the floor of scripts/bench api, ${connections} connections, ${duration} s per run, ` +
    `${rounds} alternating rounds, wrk -t2, ${messageCount} messages, synchronous=${synchronous}, node ${process.version}` +
    (baseline === undefined ? '' : `, baseline ${baseline}`),
);
const floorP99 = med(samples.floor, 'p99');
console.log(
  '| subject | req/s (median) | p50 | p99 | p99 rounds | errors | throughput ratio to floor | p99 ratio to floor |',
);
console.log('|---|---|---|---|---|---|---|---|');
const names: Record<Kind | 'floor', string> = {
  floor: 'floor (scripts/bench api)',
  opens: 'open pixel (200, 43-byte GIF)',
  clicks: 'tracked link (302)',
};
for (const subject of subjects) {
  const list = samples[subject];
  const rps = med(list, 'rps');
  const name =
    subject === 'floor'
      ? names.floor
      : `${names[kindOf(subject)]}${subject.endsWith('(baseline)') ? ', baseline' : ''}`;
  console.log(
    `| ${name} | ${rps.toFixed(0)} | ${med(list, 'p50').toFixed(1)} ms | ${med(list, 'p99').toFixed(1)} ms | ` +
      `${list.map((r) => r.p99.toFixed(1)).join(', ')} | ${list.reduce((a, r) => a + r.errors, 0)} | ` +
      `${(rps / floorRps).toFixed(2)}x | ${(med(list, 'p99') / floorP99).toFixed(2)}x |`,
  );
}
