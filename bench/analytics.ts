/**
 * Analytics report latency: GET /v1/analytics?days=90 over 1 M messages (about 2 M events), against a scan of the window's events as the reference, alternating.
 *
 * Usage: scripts/bench analytics [--messages 1000000] [--runs 200] [--reference-runs 5]
 *
 * The data: one project, `--messages` one-recipient messages spread evenly over the last 90 UTC
 * days, each with its email.sent and outcome events as the delivery engine writes them (lane,
 * latency): ~90 % delivered, 3 % delivered after a deferral, 3 % bounced, 1 % still deferred,
 * 0.5 % complained, 1.5 % opened; lanes gmail 40 %, outlook 25 %, default 20 %, yahoo 10 %,
 * icloud 5 %. Events are written straight into the event log (fast), then the real server starts
 * and its analytics projection catches up from an empty cursor: that catch-up is the second figure
 * (events per second). Then the report is requested over HTTP `--runs` times, each pass
 * alternating with the reference query: the per-day, per-type, per-lane counts of the window read
 * from the events table through its (project_id, created_at) index, which is what a report without
 * aggregates would have to scan (before even computing a median).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { encodeTime } from 'ulid';
import { validateConfig } from '../src/platform/config/load.js';
import { databaseFile } from '../src/platform/db/database.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { fmt, median } from './lib.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '200' },
    'reference-runs': { type: 'string', default: '5' },
  },
});
const messages = Number(values.messages);
const runs = Number(values.runs);
const referenceRuns = Number(values['reference-runs']);
const DAY = 86_400_000;

const dataDir = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-analytics-'));
const config = validateConfig(
  {
    server: { listen: '127.0.0.1:0' },
    storage: { data_dir: dataDir, synchronous: 'normal' },
    smtp_in: { enabled: false, listen: '127.0.0.1:0' },
    delivery: { enabled: false },
    log: { level: 'warn', access_log: false },
  },
  'bench',
);
const log = createLogger('warn');

/** A tiny deterministic PRNG, so every run writes the same data. */
function prng(seed: number) {
  let state = seed;
  return () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
}

function lane(r: number): string {
  if (r < 0.4) return 'gmail';
  if (r < 0.65) return 'outlook';
  if (r < 0.85) return 'default';
  if (r < 0.95) return 'yahoo';
  return 'icloud';
}

/** Writes the messages' events straight into the event log; returns how many. */
function writeEvents(projectId: string): number {
  const sqlite = new SQLite(databaseFile(dataDir));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  const insert = sqlite.prepare(
    `insert into events (id, project_id, type, message_id, recipient, data, created_at)
     values (?, ?, ?, ?, ?, ?, ?)`,
  );
  // Sortable IDs in insertion order, like newId's but cheap: (ulid's random part costs ~35 µs).
  const sortable = () => {
    let lastTime = 0;
    let counter = 0;
    return (at: number) => {
      lastTime = Math.max(lastTime, at);
      counter += 1;
      return `${encodeTime(lastTime, 10)}${counter.toString(32).toUpperCase().padStart(16, '0')}`;
    };
  };
  const eventId = sortable();
  const messageId = sortable();
  const random = prng(42);
  const now = Date.now();
  const start = (Math.floor(now / DAY) - 89) * DAY;
  const step = (now - start) / messages;
  let count = 0;
  const add = (type: string, message: string, recipient: string | null, data: object, at: number) => {
    insert.run(`evt_${eventId(at)}`, projectId, type, message, recipient, JSON.stringify(data), at);
    count += 1;
  };
  const batch = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const sentAt = Math.floor(start + i * step);
      const id = `msg_${messageId(sentAt)}`;
      const to = `user${i}@example${i % 1000}.test`;
      const base = { email_id: id, from: 'App <app@example.com>', to: [to], subject: 'Your code', tags: {} };
      add('email.sent', id, null, base, sentAt);
      const outcome = random();
      const via = lane(random());
      const quick = Math.round(200 + 3000 * random() ** 3);
      if (outcome < 0.9) {
        add('email.delivered', id, to, { ...base, lane: via, latency_ms: quick }, sentAt + quick);
      } else if (outcome < 0.93) {
        const slow = Math.round(60_000 + 7_200_000 * random());
        add('email.delivery_delayed', id, to, { ...base, lane: via }, sentAt + quick);
        add('email.delivered', id, to, { ...base, lane: via, latency_ms: slow }, sentAt + slow);
      } else if (outcome < 0.96) {
        add('email.bounced', id, to, { ...base, lane: via, bounce: { type: 'hard' } }, sentAt + quick);
      } else if (outcome < 0.97) {
        add('email.delivery_delayed', id, to, { ...base, lane: via }, sentAt + quick);
      } else if (outcome < 0.975) {
        add('email.delivered', id, to, { ...base, lane: via, latency_ms: quick }, sentAt + quick);
        add('email.complained', id, to, base, sentAt + 3_600_000);
      } else if (outcome < 0.99) {
        add('email.delivered', id, to, { ...base, lane: via, latency_ms: quick }, sentAt + quick);
        add('email.opened', id, to, { ...base, machine_open: false }, sentAt + 600_000);
      } else {
        add('email.delivered', id, to, { ...base, lane: via, latency_ms: quick }, sentAt + quick);
      }
    }
  });
  for (let i = 0; i < messages; i += 50_000) batch(i, Math.min(messages, i + 50_000));
  sqlite.close();
  return count;
}

// 1. An empty store with one project and key, then the events written behind the server's back.
let server = await startServer(config, log);
const ids = await server.services.projects.bootstrap(
  { email: 'bench@example.test', organization: 'Bench', project: 'Bench' },
  'bench',
);
const { key } = await server.services.keys.create(
  { projectId: ids.projectId, scopes: ['analytics:read'], mode: 'live' },
  'bench',
);
await server.stop();
let started = performance.now();
const events = writeEvents(ids.projectId);
const writeMs = performance.now() - started;
console.error(`wrote ${events} events in ${fmt(writeMs)}`);

// 2. The real server catches up on its own from an empty analytics cursor.
started = performance.now();
server = await startServer(config, log);
const sqlite = server.kernel.store.sqlite;
const lastEvent = (sqlite.prepare('select max(id) as id from events').get() as { id: string }).id;
const cursor = () =>
  (
    sqlite.prepare("select last_event_id as id from event_cursors where consumer = 'analytics'").get() as
      | { id: string }
      | undefined
  )?.id;
while (cursor() !== lastEvent) await server.services.analytics.catchUp();
const projectMs = performance.now() - started;
console.error(`projection caught up in ${fmt(projectMs)}`);

// 3. The report over HTTP, alternating with the reference scan.
const reference = sqlite.prepare(
  `select created_at / 86400000 as day, type, json_extract(data, '$.lane') as lane, count(*) as n
   from events where project_id = ? and created_at >= ? group by 1, 2, 3`,
);
// A fresh connection per request: the reference query blocks this process (the server's too) for
// seconds, longer than the server's keep-alive timeout, which would reset a reused connection.
const get = (url: string) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      })
      .on('error', reject);
  });
const report = async (days: number) => {
  const t0 = performance.now();
  const res = await get(`${server.url}/v1/analytics?days=${days}`);
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`report: ${res.status} ${res.text}`);
  return { ms, body: JSON.parse(res.text) as { sent: number; median_delivery_latency_ms: number } };
};
const samples = { report90: [] as number[], report30: [] as number[], reference: [] as number[] };
let last: { sent: number; median_delivery_latency_ms: number } | undefined;
const cold = (await report(90)).ms; // parses every histogram; later reports reuse them
for (let i = 0; i < 5; i++) await report(90); // warm-up
for (let i = 0; i < runs; i++) {
  const r90 = await report(90);
  samples.report90.push(r90.ms);
  last = r90.body;
  samples.report30.push((await report(30)).ms);
  if (i < referenceRuns) {
    const t0 = performance.now();
    reference.all(ids.projectId, (Math.floor(Date.now() / DAY) - 89) * DAY);
    samples.reference.push(performance.now() - t0);
  }
}
const aggregateRows = (sqlite.prepare('select count(*) as n from analytics_daily').get() as { n: number }).n;
await server.stop();
const fileMb = statSync(databaseFile(dataDir)).size / 1e6;
rmSync(dataDir, { recursive: true, force: true });

const p = (list: number[], q: number) =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))] as number;
const ref = median(samples.reference);
console.log(
  `${messages} messages, ${events} events over 90 days, one project; node ${process.version}; database ${fileMb.toFixed(0)} MB`,
);
console.log(
  `events written in ${fmt(writeMs)}; projection caught up from zero in ${fmt(projectMs)} (${Math.round(events / (projectMs / 1000))} events/s)`,
);
console.log(`first report (cold: every histogram parsed): ${cold.toFixed(1)} ms`);
console.log(
  `report: sent ${last?.sent}, median latency ${last?.median_delivery_latency_ms} ms, from ${aggregateRows} aggregate rows`,
);
console.log('| subject | runs | p50 | p95 | max | ratio to reference |');
console.log('|---|---|---|---|---|---|');
for (const [name, list] of Object.entries(samples)) {
  console.log(
    `| ${name} | ${list.length} | ${median(list).toFixed(1)} ms | ${p(list, 0.95).toFixed(1)} ms | ${Math.max(...list).toFixed(1)} ms | ${(median(list) / ref).toFixed(4)}x |`,
  );
}
