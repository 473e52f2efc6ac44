/**
 * Delivery: N queued messages (one recipient, DKIM RSA-2048, 10 KB and 100 KB HTML) delivered by Posthorn to a loopback SMTP sink, against Postfix relaying the same messages; API-to-MX latency; memory with 1M queued jobs.
 *
 * Usage: scripts/bench delivery [--messages 10000] [--sizes 10,100] [--rounds 3] [--latency 50]
 *                               [--queue 1000000] [--queue-seconds 30] [--no-postfix] [--node-flags=...]
 *                               [--sink lean|smtp-sink] [--render-workers 0] [--engine sqlite|postgresql] [--nodes 2]
 * Each round runs Posthorn then Postfix on the same messages (alternating, so drifting machine speed
 * hits both); the summary gives medians over the rounds and the median of the per-round ratios.
 * The MX is a sink on loopback (delivery/sink.ts): the lean one by default, Postfix's smtp-sink on
 * request. While Posthorn delivers, a probe times one scheduled send every 100 ms (the API an
 * application sees under full delivery load). Needs Debian's postfix package (the reference) and root.
 * `--node-flags=...` (with `=`) when the flags start with dashes.
 * `--engine postgresql` runs each round on SQLite, then on PostgreSQL (a fresh database on the
 * scripts/peers cluster, POSTHORN_TEST_PG_URL elsewhere), then Postfix, and adds PostgreSQL's
 * ratio to SQLite's. With `--nodes N` too, each round then runs N serve processes on one more
 * fresh database, and adds their rate together against one node's on PostgreSQL.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sign } from '../src/delivery/compose/render-task.js';
import { measurePostfix, startPostfix, submit } from './delivery/postfix.js';
import {
  composedMessage,
  latency,
  measure,
  measureNodes,
  memoryMb,
  prepare,
  type RunResult,
  SENDER_DOMAIN,
  setNodeFlags,
  setRenderWorkers,
} from './delivery/posthorn.js';
import { fillQueue } from './delivery/queue-fill.js';
import { startBenchMx } from './delivery/sink.js';
import { median, parseSizes, roundRatios, stopChild } from './lib.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '10000' },
    sizes: { type: 'string', default: '10,100' },
    rounds: { type: 'string', default: '3' },
    latency: { type: 'string', default: '50' },
    queue: { type: 'string', default: '1000000' },
    'queue-seconds': { type: 'string', default: '30' },
    'no-postfix': { type: 'boolean', default: false },
    sink: { type: 'string', default: 'lean' },
    'render-workers': { type: 'string', default: '0' },
    engine: { type: 'string', default: 'sqlite' },
    nodes: { type: 'string', default: '1' },
    // Unset: bin/posthorn's own flags; given: POSTHORN_NODE_FLAGS for the server.
    'node-flags': { type: 'string' },
  },
});
const messages = Number(values.messages);
const sizes = parseSizes(values.sizes);
const rounds = Math.max(1, Number(values.rounds));
const samples = Number(values.latency);
const queueRows = Number(values.queue);
setNodeFlags(values['node-flags']);
setRenderWorkers(Number(values['render-workers']));

const base = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-delivery-'));
const sinkKind = String(values.sink);
const engine = String(values.engine);
if (engine !== 'sqlite' && engine !== 'postgresql') throw new Error('--engine is sqlite or postgresql');
const nodes = Number(values.nodes);
if (!Number.isInteger(nodes) || nodes < 1) throw new Error('--nodes is a whole number >= 1');
if (nodes > 1 && engine !== 'postgresql') throw new Error('--nodes needs --engine postgresql');
if (sinkKind !== 'lean' && sinkKind !== 'smtp-sink') throw new Error('--sink is lean or smtp-sink');
const { dns, sink } = await startBenchMx(sinkKind);

const rows: { subject: string; kb: number; round: number; r: RunResult }[] = [];
let latencies: number[] = [];
const memory: { second: number; rssMb: number; delivered: number }[] = [];
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** The message Postfix relays: composed and signed by Posthorn's own code, so the same bytes. */
async function referenceMessage(kb: number): Promise<Buffer> {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const composed = composedMessage(kb);
  const dkim = {
    domain: SENDER_DOMAIN,
    keys: [{ selector: 'bench', privateKeyPem: privateKey, algorithm: 'rsa-sha256' as const }],
  };
  return Buffer.concat([Buffer.from(await sign(composed, dkim, new Date()), 'latin1'), composed]);
}

try {
  for (const kb of sizes) {
    const reference = values['no-postfix'] ? null : await referenceMessage(kb);
    for (let round = 1; round <= rounds; round++) {
      const tag = `${kb} KB, round ${round}/${rounds}`;
      const dir = path.join(base, `posthorn-${kb}-${round}`);
      mkdirSync(dir, { recursive: true });
      process.stderr.write(`posthorn ${tag}: queueing ${messages} messages through the API...\n`);
      const prepared = await prepare(dir, dns, sink.port, messages, kb);
      process.stderr.write(`posthorn ${tag}: delivering...\n`);
      const { result, child } = await measure(prepared, sink, messages);
      rows.push({ subject: 'posthorn', kb, round, r: result });
      if (latencies.length === 0 && samples > 0) {
        process.stderr.write(`posthorn: API-to-MX latency, ${samples} sends one at a time...\n`);
        latencies = await latency(prepared, sink, samples, kb);
      }
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });

      if (engine === 'postgresql') {
        const { freshDatabase } = await import('../test/helpers/postgres.js');
        const database = await freshDatabase(null, { migrated: true });
        const pgDir = path.join(base, `posthorn-pg-${kb}-${round}`);
        mkdirSync(pgDir, { recursive: true });
        try {
          process.stderr.write(`posthorn-pg ${tag}: queueing ${messages} messages through the API...\n`);
          const onPg = await prepare(pgDir, dns, sink.port, messages, kb, database.url);
          process.stderr.write(`posthorn-pg ${tag}: delivering...\n`);
          const measured = await measure(onPg, sink, messages, database.url);
          rows.push({ subject: 'posthorn-pg', kb, round, r: measured.result });
          await stopChild(measured.child);
        } finally {
          await database.drop();
          rmSync(pgDir, { recursive: true, force: true });
        }
        if (nodes > 1) {
          const shared = await freshDatabase(null, { migrated: true });
          const nodesDir = path.join(base, `posthorn-pg${nodes}-${kb}-${round}`);
          mkdirSync(nodesDir, { recursive: true });
          try {
            process.stderr.write(
              `posthorn-pg x${nodes} ${tag}: queueing ${messages} messages through the API...\n`,
            );
            const onPg = await prepare(nodesDir, dns, sink.port, messages, kb, shared.url);
            process.stderr.write(`posthorn-pg x${nodes} ${tag}: delivering...\n`);
            const measured = await measureNodes(onPg, sink, messages, nodes);
            rows.push({ subject: `posthorn-pg-x${nodes}`, kb, round, r: measured.result });
            await Promise.all(measured.children.map((child) => stopChild(child)));
          } finally {
            await shared.drop();
            rmSync(nodesDir, { recursive: true, force: true });
          }
        }
      }

      if (reference !== null) {
        const pfDir = path.join(base, `postfix-${kb}-${round}`);
        process.stderr.write(`postfix ${tag}: submitting ${messages} messages (held)...\n`);
        const postfix = startPostfix(pfDir, sink.port);
        try {
          await submit(postfix, reference, messages);
          process.stderr.write(`postfix ${tag}: releasing and delivering...\n`);
          rows.push({ subject: 'postfix', kb, round, r: await measurePostfix(postfix, sink, messages) });
        } finally {
          postfix.stop();
          rmSync(pfDir, { recursive: true, force: true });
        }
      }
    }
  }

  if (queueRows > 0) {
    const dir = path.join(base, 'queue');
    mkdirSync(dir, { recursive: true });
    process.stderr.write(`memory: filling the queue with ${queueRows} jobs...\n`);
    const prepared = await prepare(dir, dns, sink.port, 0, 1);
    await fillQueue(prepared.dataDir, queueRows);
    process.stderr.write('memory: draining and sampling RSS once a second...\n');
    const startCount = sink.count;
    const { spawnPosthorn } = await import('./delivery/posthorn.js');
    const child = spawnPosthorn(prepared);
    const seconds = Number(values['queue-seconds']);
    for (let s = 1; s <= seconds; s++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      memory.push({
        second: s,
        rssMb: memoryMb(child.pid as number).rss,
        delivered: sink.count - startCount,
      });
    }
    await stopChild(child);
  }
} finally {
  await sink.stop();
  await dns.stop();
  rmSync(base, { recursive: true, force: true });
}

/** p50 / p95 of the API probe's response times, in ms. */
function underLoad(times: readonly number[] | undefined): string {
  if (times === undefined || times.length === 0) return '-';
  const sorted = [...times].sort((a, b) => a - b);
  return `${fmt(median(sorted), 1)} / ${fmt(sorted[Math.floor(sorted.length * 0.95)] ?? Number.NaN, 1)} ms (${sorted.length})`;
}

const flags = values['node-flags'];
console.log(
  `posthorn serve runs with node flags: ${flags === undefined ? "bin/posthorn's" : flags || '(none)'}`,
);
console.log(
  `\ndelivery to a loopback SMTP sink (${sinkKind}), ${messages} messages per run, node ${process.version}, ${(await import('node:os')).availableParallelism()} CPUs`,
);
console.log(
  '| subject | body | round | messages/s | seconds | process CPU % | machine CPU % | peak RSS MB | API p50 / p95 under load | event loop CPU ms/msg | database CPU ms/msg |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const { subject, kb, round, r } of rows) {
  console.log(
    `| ${subject} | ${kb} KB | ${round} | ${fmt(r.rate)} | ${fmt(r.seconds, 1)} | ${fmt(r.cpuPercent)} | ${fmt(r.machinePercent)} | ${r.peakRssMb === null ? '-' : fmt(r.peakRssMb)} | ${underLoad(r.apiUnderLoadMs)} | ${r.mainThreadMsPerMessage === undefined ? '-' : fmt(r.mainThreadMsPerMessage, 3)} | ${r.databaseMsPerMessage === undefined ? '-' : fmt(r.databaseMsPerMessage, 3)} |`,
  );
}
console.log(
  '\n| body | posthorn msg/s (median) | postfix msg/s (median) | ratio (median of rounds) | posthorn peak RSS MB (max) |',
);
console.log('|---|---|---|---|---|');
for (const kb of sizes) {
  const of = (subject: string) => rows.filter((row) => row.subject === subject && row.kb === kb);
  const ph = of('posthorn');
  const pf = of('postfix');
  const ratios = roundRatios(
    ph.map((p) => ({ round: p.round, rate: p.r.rate })),
    pf.map((p) => ({ round: p.round, rate: p.r.rate })),
  );
  const peak = Math.max(...ph.map((p) => p.r.peakRssMb ?? Number.NaN));
  console.log(
    `| ${kb} KB | ${fmt(median(ph.map((p) => p.r.rate)))} | ${pf.length ? fmt(median(pf.map((p) => p.r.rate))) : '-'} | ${ratios.length ? `${median(ratios).toFixed(2)}x` : '-'} | ${fmt(peak)} |`,
  );
}
if (engine === 'postgresql') {
  console.log(
    '\n| body | posthorn SQLite msg/s (median) | posthorn PostgreSQL msg/s (median) | PostgreSQL / SQLite (median of rounds) |',
  );
  console.log('|---|---|---|---|');
  for (const kb of sizes) {
    const of = (subject: string) => rows.filter((row) => row.subject === subject && row.kb === kb);
    const lite = of('posthorn');
    const pg = of('posthorn-pg');
    const ratios = roundRatios(
      pg.map((p) => ({ round: p.round, rate: p.r.rate })),
      lite.map((p) => ({ round: p.round, rate: p.r.rate })),
    );
    console.log(
      `| ${kb} KB | ${fmt(median(lite.map((p) => p.r.rate)))} | ${fmt(median(pg.map((p) => p.r.rate)))} | ${ratios.length ? `${median(ratios).toFixed(2)}x` : '-'} |`,
    );
  }
  if (nodes > 1) {
    console.log(
      `\n| body | ${nodes} nodes on PostgreSQL msg/s (median) | one node msg/s (median) | ${nodes} nodes / one (median of rounds) |`,
    );
    console.log('|---|---|---|---|');
    for (const kb of sizes) {
      const of = (subject: string) => rows.filter((row) => row.subject === subject && row.kb === kb);
      const many = of(`posthorn-pg-x${nodes}`);
      const one = of('posthorn-pg');
      const ratios = roundRatios(
        many.map((p) => ({ round: p.round, rate: p.r.rate })),
        one.map((p) => ({ round: p.round, rate: p.r.rate })),
      );
      console.log(
        `| ${kb} KB | ${fmt(median(many.map((p) => p.r.rate)))} | ${fmt(median(one.map((p) => p.r.rate)))} | ${ratios.length ? `${median(ratios).toFixed(2)}x` : '-'} |`,
      );
    }
  }
}
if (latencies.length > 0) {
  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(
    `API-to-MX latency, empty queue, ${latencies.length} sends: median ${fmt(median(latencies), 1)} ms, p95 ${fmt(sorted[Math.floor(sorted.length * 0.95)] ?? Number.NaN, 1)} ms, max ${fmt(sorted[sorted.length - 1] ?? Number.NaN, 1)} ms`,
  );
}
if (memory.length > 0) {
  console.log(`\nRSS while draining a queue of ${queueRows} jobs (1 KB bodies):`);
  console.log('| second | RSS MB | delivered |');
  console.log('|---|---|---|');
  for (const m of memory.filter((_, i) => i === 0 || (i + 1) % 5 === 0))
    console.log(`| ${m.second} | ${fmt(m.rssMb)} | ${m.delivered} |`);
}
