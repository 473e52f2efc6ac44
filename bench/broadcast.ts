/**
 * Broadcast: a 100,000-contact broadcast delivered to a loopback sink while transactional sends run, against the delivery benchmark's rate in the same run; transactional API-to-MX latency during it against idle; RSS.
 *
 * Usage: scripts/bench broadcast [--contacts 100000] [--rounds 2] [--kb 10] [--reference 10000]
 *                                [--idle 30] [--probe-ms 100]
 * Each round runs the reference, the delivery benchmark's Posthorn subject (N queued one-recipient
 * messages of `kb` KB, signed at admission, delivered by a real `posthorn serve` to the lean sink),
 * then the broadcast: a data directory with the contacts imported through the API and a draft,
 * a real `posthorn serve`, `idle` transactional sends one at a time (API to MX, idle), then the
 * broadcast scheduled while a transactional send goes every `probe-ms` (API to MX, under the
 * broadcast; its MX is a second sink on 127.0.0.2). The broadcast's rate is measured at the sink
 * from its first to its last message, as the reference's is. Targets: rate ≥ 0.8x the reference,
 * transactional median ≤ 2x idle, peak RSS ≤ 300 MB.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type ChildProcess, spawn } from 'node:child_process';
import { prepareBroadcast, type PreparedBroadcast, TX_DOMAIN, transactional } from './broadcast/setup.js';
import { measure, memoryMb, prepare } from './delivery/posthorn.js';
import { machineCpuMs } from './delivery/proc.js';
import { type Sink, startBenchMx, startSink } from './delivery/sink.js';
import { median, stopChild, waitReady } from './lib.js';

const { values } = parseArgs({
  options: {
    contacts: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '2' },
    kb: { type: 'string', default: '10' },
    reference: { type: 'string', default: '10000' },
    idle: { type: 'string', default: '30' },
    'probe-ms': { type: 'string', default: '100' },
  },
});
const contacts = Number(values.contacts);
const rounds = Math.max(1, Number(values.rounds));
const kb = Number(values.kb);
const referenceMessages = Number(values.reference);
const idleSamples = Number(values.idle);
const probeMs = Number(values['probe-ms']);
const BIN = path.resolve(import.meta.dirname, '../../bin/posthorn');

interface BroadcastRun {
  readonly rate: number;
  readonly seconds: number;
  readonly scheduleToFirstMs: number;
  readonly idleMs: number[];
  readonly underLoadMs: number[];
  readonly peakRssMb: number;
  readonly machinePercent: number;
  readonly importSeconds: number;
}

const base = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-broadcast-'));
const { dns, sink } = await startBenchMx('lean');
const txSink = await startSink(sink.port, 'lean', '127.0.0.2');
dns.set(TX_DOMAIN, 'MX', [{ preference: 10, exchange: `mx.${TX_DOMAIN}` }]);
dns.set(`mx.${TX_DOMAIN}`, 'A', ['127.0.0.2']);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runBroadcast(dir: string): Promise<BroadcastRun> {
  process.stderr.write(`broadcast: importing ${contacts} contacts through the API...\n`);
  const prepared: PreparedBroadcast = await prepareBroadcast(dir, dns, sink.port, contacts, kb);
  const child: ChildProcess = spawn(BIN, ['serve', '--config', prepared.configFile], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitReady(`http://127.0.0.1:${prepared.port}/health`, performance.now(), 60_000);
    process.stderr.write(`broadcast: ${idleSamples} transactional sends, idle...\n`);
    const idleMs: number[] = [];
    for (let i = 0; i < idleSamples; i++) {
      idleMs.push(await transactional(prepared, txSink, `idle${i}`));
      await pause(probeMs);
    }
    process.stderr.write('broadcast: sending, transactional sends beside it...\n');
    const first = sink.count;
    const scheduled = performance.now();
    const res = await fetch(
      `http://127.0.0.1:${prepared.port}/v1/broadcasts/${prepared.broadcastId}/schedule`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${prepared.apiKey}` },
      },
    );
    if (res.status !== 202) throw new Error(`schedule: ${res.status} ${await res.text()}`);
    const t0 = await sink.waitFor(first + 1, 120_000);
    const machine0 = machineCpuMs();
    const underLoadMs: number[] = [];
    let probing = true;
    const probe = (async () => {
      for (let i = 0; probing; i++) {
        underLoadMs.push(await transactional(prepared, txSink, `busy${i}`));
        await pause(probeMs);
      }
    })();
    const t1 = await sink.waitFor(first + contacts, 3_600_000);
    const machine1 = machineCpuMs();
    probing = false;
    await probe;
    const seconds = (t1 - t0) / 1000;
    return {
      rate: (contacts - 1) / seconds,
      seconds,
      scheduleToFirstMs: t0 - scheduled,
      idleMs,
      underLoadMs,
      peakRssMb: memoryMb(child.pid as number).peak,
      machinePercent: ((machine1.busy - machine0.busy) / (t1 - t0)) * 100,
      importSeconds: prepared.importSeconds,
    };
  } finally {
    await stopChild(child);
  }
}

const references: number[] = [];
const broadcasts: BroadcastRun[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    const refDir = path.join(base, `reference-${round}`);
    mkdirSync(refDir, { recursive: true });
    process.stderr.write(
      `reference ${round}/${rounds}: queueing ${referenceMessages} messages (delivery benchmark)...\n`,
    );
    const prepared = await prepare(refDir, dns, sink.port, referenceMessages, kb);
    const { result, child } = await measure(prepared, sink as Sink, referenceMessages);
    await stopChild(child);
    references.push(result.rate);
    rmSync(refDir, { recursive: true, force: true });
    process.stderr.write(`reference ${round}/${rounds}: ${result.rate.toFixed(0)} msg/s\n`);

    const dir = path.join(base, `broadcast-${round}`);
    mkdirSync(dir, { recursive: true });
    const run = await runBroadcast(dir);
    broadcasts.push(run);
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(`broadcast ${round}/${rounds}: ${run.rate.toFixed(0)} msg/s\n`);
  }
} finally {
  await sink.stop();
  await txSink.stop();
  await dns.stop();
  rmSync(base, { recursive: true, force: true });
}

const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const p95 = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] ?? Number.NaN;
console.log(
  `\nbroadcast of ${contacts} contacts, ${kb} KB HTML, node ${process.version}; reference: the delivery benchmark, ${referenceMessages} messages`,
);
console.log(
  '| round | reference msg/s | broadcast msg/s | ratio | broadcast s | schedule to first ms | tx idle p50 / p95 ms | tx under broadcast p50 / p95 ms (n) | latency ratio | peak RSS MB | machine CPU % | import s |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
broadcasts.forEach((run, i) => {
  const ref = references[i] ?? Number.NaN;
  console.log(
    `| ${i + 1} | ${f(ref)} | ${f(run.rate)} | ${f(run.rate / ref, 2)}x | ${f(run.seconds, 1)} | ${f(run.scheduleToFirstMs)} | ${f(median(run.idleMs), 1)} / ${f(p95(run.idleMs), 1)} | ${f(median(run.underLoadMs), 1)} / ${f(p95(run.underLoadMs), 1)} (${run.underLoadMs.length}) | ${f(median(run.underLoadMs) / median(run.idleMs), 2)}x | ${f(run.peakRssMb)} | ${f(run.machinePercent)} | ${f(run.importSeconds, 1)} |`,
  );
});
const rateRatios = broadcasts.map((run, i) => run.rate / (references[i] ?? Number.NaN));
const latencyRatios = broadcasts.map((run) => median(run.underLoadMs) / median(run.idleMs));
console.log(
  `\nmedians: reference ${f(median(references))} msg/s, broadcast ${f(median(broadcasts.map((r) => r.rate)))} msg/s, ratio ${f(median(rateRatios), 2)}x (target >= 0.8x); transactional latency ratio ${f(median(latencyRatios), 2)}x (target <= 2x); peak RSS ${f(Math.max(...broadcasts.map((r) => r.peakRssMb)))} MB (target <= 300)`,
);
