/**
 * Public status: GET /v1/status and GET /v1/status/rss.xml with 1,000 incidents in the history, against the floor of `scripts/bench api`, alternating.
 *
 * Usage: scripts/bench status [--rounds 3] [--duration 15] [--connections 50] [--incidents 1000]
 *   [--synchronous full|normal]   (the floor's durability, as in `scripts/bench api`; the status
 *   routes write nothing, so Posthorn's does not matter here)
 *
 * Each round runs three subjects, each in a fresh process on a fresh data dir, with wrk after a
 * short warm-up: the floor of `scripts/bench api` (a minimal Koa + better-sqlite3 server inserting
 * one row per POST of the 5 KB send body), Posthorn answering `GET /v1/status` (the default page:
 * components, open incidents, the newest 20 of the history with their updates) and Posthorn
 * answering `GET /v1/status/rss.xml` (the newest 100 updates). Every request is a full 200 (no
 * If-None-Match: a poller that sends its ETag gets a 304, which is cheaper still). Posthorn's
 * store holds `--incidents` incidents written through the incident service, as the command line
 * writes them: each opened, updated and resolved (three updates), the newest one still open.
 * Posthorn runs with its defaults except delivery and inbound SMTP off. Target: ≥ 1.0x the floor.
 * Beside each rate, the server's main-thread CPU time per request answered (from /proc), which
 * holds when other processes take turns on the host's cores.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { validateConfig } from '../src/platform/config/load.js';
import { openConfiguredStore } from '../src/platform/db/database.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { createIncidentService } from '../src/status/incidents/service.js';
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

const { values } = parseArgs({
  options: {
    ...wrkOptions(),
    incidents: { type: 'string', default: '1000' },
  },
});
const { rounds, duration, connections, warmup, synchronous } = wrkSettings(values);
const incidentCount = Number(values.incidents);
const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/posthorn');

type Subject = 'floor' | 'status' | 'rss';
const SUBJECTS: readonly Subject[] = ['floor', 'status', 'rss'];
const pathOf: Record<Subject, string> = {
  floor: '/v1/emails',
  status: '/v1/status',
  rss: '/v1/status/rss.xml',
};

const COMPONENTS = ['api', 'database', 'delivery', 'inbound', 'webhooks'];

/** What one run measured: wrk's figures, the answer's size, and the server's CPU per request. */
interface Sample extends WrkResult {
  readonly bytes: number;
  /** CPU time of the server's main thread (its event loop) per request answered, in µs. */
  readonly cpuUs: number;
}

/**
 * A data dir holding `incidentCount` incidents, written once and copied for each Posthorn run (the
 * writes go through the incident service, one transaction per change, so they take a while).
 */
async function prepareHistory(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-status-history-'));
  // The history is written without waiting for the disk on each commit; served, it is only read.
  const config = validateConfig(
    {
      server: { listen: '127.0.0.1:0' },
      storage: { data_dir: dir, synchronous: 'normal' },
      smtp_in: { enabled: false },
      delivery: { enabled: false },
    },
    'bench',
  );
  // A first boot makes the store what serve expects (migrations, master key, system project); the
  // incidents are then written as the command line writes them, without a server whose status
  // engine would reload the history after every change.
  await (await startServer(config, createLogger('silent'))).stop();
  const store = openConfiguredStore(config.storage);
  const incidents = createIncidentService(store.db);
  const started = performance.now();
  for (let i = 0; i < incidentCount; i++) {
    const component = COMPONENTS[i % COMPONENTS.length] as string;
    const opened = await incidents.open({
      title: `Incident ${i + 1}: ${component} slower than usual`,
      components: i % 7 === 0 ? [component, 'api'] : [component],
      impact: ['degraded', 'partial_outage', 'major_outage'][i % 3] as string,
      message: `We are investigating reports of ${component} answering late for some customers.`,
    });
    if (i === incidentCount - 1) break;
    await incidents.update(
      opened.incident.id,
      'identified',
      'The cause is identified: a provider throttling one lane; mail is queued and retried.',
    );
    await incidents.resolve(opened.incident.id, 'Resolved: the queue has drained and mail flows normally.');
  }
  await store.close();
  console.error(
    `history: ${incidentCount} incidents written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return dir;
}

/** Checks that the subject answers as described before it is measured. */
async function sanityCheck(url: string): Promise<void> {
  const res = await fetch(`${url}/v1/status`);
  const body = (await res.json()) as {
    incidents: unknown[];
    history: { data: unknown[]; has_more: boolean };
  };
  const feed = await fetch(`${url}/v1/status/rss.xml`);
  const xml = await feed.text();
  const items = xml.match(/<item>/g)?.length ?? 0;
  if (
    res.status !== 200 ||
    body.incidents.length !== 1 ||
    body.history.data.length !== 20 ||
    body.history.has_more !== incidentCount > 20 ||
    feed.status !== 200 ||
    !feed.headers.get('content-type')?.startsWith('application/rss+xml') ||
    items !== Math.min(100, 3 * incidentCount - 2)
  )
    throw new Error(
      `unexpected status answers: ${res.status} ${JSON.stringify({ open: body.incidents.length, history: body.history.data.length, more: body.history.has_more })}, feed ${feed.status} with ${items} items`,
    );
}

async function measure(subject: Subject, history: string): Promise<Sample> {
  const dir = mkdtempSync(path.join(tmpdir(), `posthorn-bench-status-${subject}-`));
  const port = await freePort();
  try {
    let child: ReturnType<typeof spawnQuiet>;
    if (subject === 'floor') {
      child = spawnQuiet(
        process.execPath,
        ['-e', floorServerSource(synchronous)],
        { ...process.env, PORT: String(port), FLOOR_DB: path.join(dir, 'floor.sqlite') },
        root,
      );
    } else {
      cpSync(history, dir, { recursive: true });
      const toml = writeServeToml(dir, port);
      // As an operator runs it: bin/posthorn, with the Node flags it ships.
      child = spawnQuiet(bin, ['serve', '--config', toml], { ...process.env }, root);
    }
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitReady(`${url}/health`, performance.now());
      let bytes = 0;
      let script: string | undefined;
      if (subject === 'floor') {
        script = path.join(dir, 'post.lua');
        writeFileSync(
          script,
          `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = ${JSON.stringify(sendBody)}\n`,
        );
      } else {
        await sanityCheck(url);
        bytes = (await (await fetch(`${url}${pathOf[subject]}`)).arrayBuffer()).byteLength;
      }
      const target = `${url}${pathOf[subject]}`;
      if (warmup > 0) await runWrk(target, { connections, seconds: warmup, script });
      const pid = child.pid as number;
      const cpuBefore = mainThreadCpuMs(pid);
      const result = await runWrk(target, { connections, seconds: duration, script });
      return { ...result, bytes, cpuUs: ((mainThreadCpuMs(pid) - cpuBefore) * 1000) / result.requests };
    } finally {
      await stopChild(child);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const history = await prepareHistory();
const samples: Record<Subject, Sample[]> = { floor: [], status: [], rss: [] };
try {
  for (let round = 1; round <= rounds; round++) {
    for (const subject of SUBJECTS) {
      const result = await measure(subject, history);
      samples[subject].push(result);
      console.error(
        `round ${round} ${subject}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${result.errors}, server CPU ${result.cpuUs.toFixed(0)} µs/request`,
      );
    }
  }
} finally {
  rmSync(history, { recursive: true, force: true });
}

const med = (list: Sample[], field: keyof Sample) => median(list.map((r) => r[field]));
const floorRps = med(samples.floor, 'rps');
console.log(
  `GET /v1/status and /v1/status/rss.xml (${incidentCount} incidents) vs the floor of scripts/bench api, ` +
    `${connections} connections, ${duration} s per run, ${rounds} alternating rounds, wrk -t2, ` +
    `floor synchronous=${synchronous}, node ${process.version}`,
);
console.log(
  '| subject | body | req/s (median) | p50 | p99 | errors | throughput ratio to floor | per-round ratios | server CPU per request (median) |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
const names: Record<Subject, string> = {
  floor: 'floor (scripts/bench api, POST)',
  status: 'GET /v1/status',
  rss: 'GET /v1/status/rss.xml',
};
for (const subject of SUBJECTS) {
  const list = samples[subject];
  const rps = med(list, 'rps');
  const perRound = list.map((r, i) => (r.rps / (samples.floor[i]?.rps ?? Number.NaN)).toFixed(2)).join(', ');
  const body = subject === 'floor' ? '5 KB in' : `${((list[0]?.bytes ?? 0) / 1024).toFixed(1)} KB out`;
  console.log(
    `| ${names[subject]} | ${body} | ${rps.toFixed(0)} | ${med(list, 'p50').toFixed(1)} ms | ${med(list, 'p99').toFixed(1)} ms | ` +
      `${list.reduce((a, r) => a + r.errors, 0)} | ${(rps / floorRps).toFixed(2)}x | ${perRound} | ${med(list, 'cpuUs').toFixed(0)} µs |`,
  );
}
