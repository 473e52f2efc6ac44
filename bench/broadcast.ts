/**
 * Broadcast: a 100,000-contact broadcast delivered to a loopback sink while transactional sends run, against the delivery benchmark's rate in the same run; transactional API-to-MX latency during it against idle; RSS.
 *
 * Usage: scripts/bench broadcast [--contacts 100000] [--rounds 2] [--kb 10] [--reference 10000]
 *                                [--idle 30] [--probe-ms 100] [--ahead <s>]
 *                                [--subjects delivery,signing,broadcast,prepared]
 * Each round measures four subjects, in alternating order (first round A B C D, the next D C B A):
 * - A, the delivery benchmark's Posthorn subject (the reference): N queued one-recipient
 *   messages of `kb` KB, signed at admission, delivered by a real `posthorn serve` to the lean sink;
 * - B, the same queue with its stored renderings dropped, so each message is composed and signed at
 *   delivery, as a broadcast's are: the delivery benchmark with the signing in its window;
 * - C, the broadcast: a data directory with the contacts imported through the API and a draft, a
 *   real `posthorn serve`, `idle` transactional sends one at a time (API to MX, idle), then the
 *   broadcast scheduled while a transactional send goes every `probe-ms` (API to MX, under the
 *   broadcast; its MX is a second sink on 127.0.0.2). Its window holds the expansion (admission of
 *   each contact's message), the composition and signing, and the delivery.
 * - D, the same broadcast scheduled `ahead` seconds ahead (default: contacts / 500, at least 30), so
 *   that it is prepared (composed and signed) before its send time, as a broadcast scheduled for
 *   later is (src/broadcasts/preparation.ts); transactional sends are timed during the preparation
 *   too. Its window holds the expansion and the delivery: what A's holds, and the expansion.
 * Rates are measured at the sink from the first to the last message. Each subject's server CPU
 * (all threads, and its main thread) per message delivered is read from /proc: on a shared host it
 * says what each costs better than a rate does. Targets: broadcast rate ≥ 0.8x A, transactional
 * median ≤ 2x idle, peak RSS ≤ 300 MB.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  prepareBroadcast,
  type PreparedBroadcast,
  TX_DOMAIN,
  type TransactionalTimes,
  transactional,
} from './broadcast/setup.js';
import { measure, memoryMb, prepare } from './delivery/posthorn.js';
import { mainThreadCpuMs, processCpuMs } from './delivery/proc.js';
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
    ahead: { type: 'string' },
    subjects: { type: 'string', default: 'delivery,signing,broadcast,prepared' },
  },
});
const contacts = Number(values.contacts);
const rounds = Math.max(1, Number(values.rounds));
const kb = Number(values.kb);
const referenceMessages = Number(values.reference);
const idleSamples = Number(values.idle);
const probeMs = Number(values['probe-ms']);
const aheadSeconds = Number(values.ahead ?? Math.max(30, Math.ceil(contacts / 500)));
/** Which subjects to run (a profile of one, say); the ratios need all three. */
const subjects = new Set(String(values.subjects).split(','));
const BIN = path.resolve(import.meta.dirname, '../../bin/posthorn');

/** What every subject reports. */
interface Run {
  readonly rate: number;
  readonly seconds: number;
  /** Server CPU (all threads) per message delivered, ms. */
  readonly cpuMs: number;
  /** The server's main thread (event loop) CPU per message delivered, ms. */
  readonly mainMs: number;
  /** The host's 1-minute load average at the start of the window. */
  readonly load: number;
  /** The server's peak RSS (VmHWM), MB. */
  readonly peakRssMb: number;
}

interface BroadcastRun extends Run {
  readonly scheduleToFirstMs: number;
  /** Transactional sends, API to MX, idle and during the broadcast. */
  readonly idleMs: number[];
  readonly underLoadMs: number[];
  /** The same sends, request to 202. */
  readonly idleApiMs: number[];
  readonly underLoadApiMs: number[];
  readonly importSeconds: number;
  /** D only: from the schedule to every contact prepared (NaN when not all were by the send time). */
  readonly prepareSeconds: number;
  readonly prepared: number;
  /** D only: transactional sends, API to MX, during the preparation. */
  readonly preparingMs: number[];
}

type Subject = 'delivery' | 'signing' | 'broadcast' | 'prepared';

const base = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-broadcast-'));
const { dns, sink } = await startBenchMx('lean');
const txSink = await startSink(sink.port, 'lean', '127.0.0.2');
dns.set(TX_DOMAIN, 'MX', [{ preference: 10, exchange: `mx.${TX_DOMAIN}` }]);
dns.set(`mx.${TX_DOMAIN}`, 'A', ['127.0.0.2']);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () => loadavg()[0] as number;

/** A or B: the delivery benchmark's subject, its messages signed at admission or (B) not. */
async function runReference(dir: string, signedAtAdmission: boolean): Promise<Run> {
  const prepared = await prepare(dir, dns, sink.port, referenceMessages, kb);
  if (!signedAtAdmission) {
    // The renderings stored at admission are dropped: delivery composes and signs every message.
    const db = new SQLite(path.join(prepared.dataDir, 'posthorn.sqlite'));
    db.exec('delete from message_raw');
    db.close();
  }
  const started = load();
  const { result, child } = await measure(prepared, sink as Sink, referenceMessages);
  await stopChild(child);
  const windowMs = result.seconds * 1000;
  return {
    rate: result.rate,
    seconds: result.seconds,
    cpuMs: ((result.cpuPercent / 100) * windowMs) / (referenceMessages - 1),
    mainMs: result.mainThreadMsPerMessage ?? Number.NaN,
    load: started,
    peakRssMb: result.peakRssMb ?? Number.NaN,
  };
}

/** C (or D, `ahead`): the broadcast, with transactional sends timed idle and beside it. */
async function runBroadcast(dir: string, ahead: boolean): Promise<BroadcastRun> {
  process.stderr.write(`broadcast: importing ${contacts} contacts through the API...\n`);
  const prepared: PreparedBroadcast = await prepareBroadcast(dir, dns, sink.port, contacts, kb);
  const child: ChildProcess = spawn(BIN, ['serve', '--config', prepared.configFile], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const pid = child.pid as number;
  try {
    await waitReady(`http://127.0.0.1:${prepared.port}/health`, performance.now(), 60_000);
    process.stderr.write(`broadcast: ${idleSamples} transactional sends, idle...\n`);
    const idle: TransactionalTimes[] = [];
    for (let i = 0; i < idleSamples; i++) {
      idle.push(await transactional(prepared, txSink, `idle${i}`));
      await pause(probeMs);
    }
    const first = sink.count;
    const scheduled = performance.now();
    const url = `http://127.0.0.1:${prepared.port}/v1/broadcasts/${prepared.broadcastId}`;
    const authorization = `Bearer ${prepared.apiKey}`;
    const sendAt = Date.now() + aheadSeconds * 1000;
    const res = await fetch(`${url}/schedule`, {
      method: 'POST',
      headers: { authorization, ...(ahead ? { 'content-type': 'application/json' } : {}) },
      ...(ahead ? { body: JSON.stringify({ send_at: new Date(sendAt).toISOString() }) } : {}),
    });
    if (res.status !== 202) throw new Error(`schedule: ${res.status} ${await res.text()}`);
    const preparing: TransactionalTimes[] = [];
    let prepareSeconds = Number.NaN;
    let preparedCount = 0;
    if (ahead) {
      process.stderr.write(
        `broadcast: scheduled ${aheadSeconds} s ahead, preparing (transactional sends beside it)...\n`,
      );
      for (let i = 0; Date.now() < sendAt - 1000; i++) {
        preparing.push(await transactional(prepared, txSink, `prep${i}`));
        if (i % 10 === 0 && Number.isNaN(prepareSeconds)) {
          const state = (await (await fetch(url, { headers: { authorization } })).json()) as {
            prepared_at: string | null;
            progress?: { prepared: number };
          };
          preparedCount = state.progress?.prepared ?? 0;
          if (state.prepared_at !== null) prepareSeconds = (performance.now() - scheduled) / 1000;
        }
        await pause(probeMs);
      }
      process.stderr.write(
        `broadcast: ${preparedCount} prepared in ${prepareSeconds.toFixed(1)} s; sending at its time...\n`,
      );
    } else process.stderr.write('broadcast: sending, transactional sends beside it...\n');
    const t0 = await sink.waitFor(first + 1, 120_000 + aheadSeconds * 1000);
    const started = load();
    const cpu0 = processCpuMs(pid);
    const main0 = mainThreadCpuMs(pid);
    const underLoad: TransactionalTimes[] = [];
    let probing = true;
    const probe = (async () => {
      for (let i = 0; probing; i++) {
        underLoad.push(await transactional(prepared, txSink, `busy${i}`));
        await pause(probeMs);
      }
    })();
    const t1 = await sink.waitFor(first + contacts, 3_600_000);
    const cpu1 = processCpuMs(pid);
    const main1 = mainThreadCpuMs(pid);
    probing = false;
    await probe;
    const seconds = (t1 - t0) / 1000;
    return {
      rate: (contacts - 1) / seconds,
      seconds,
      cpuMs: (cpu1 - cpu0) / (contacts - 1),
      mainMs: (main1 - main0) / (contacts - 1),
      load: started,
      scheduleToFirstMs: t0 - scheduled,
      idleMs: idle.map((t) => t.mxMs),
      underLoadMs: underLoad.map((t) => t.mxMs),
      idleApiMs: idle.map((t) => t.apiMs),
      underLoadApiMs: underLoad.map((t) => t.apiMs),
      peakRssMb: memoryMb(pid).peak,
      importSeconds: prepared.importSeconds,
      prepareSeconds,
      prepared: preparedCount,
      preparingMs: preparing.map((t) => t.mxMs),
    };
  } finally {
    await stopChild(child);
  }
}

const runs: Record<Subject, Run[]> = { delivery: [], signing: [], broadcast: [], prepared: [] };
const broadcasts: { round: number; kind: 'now' | 'ahead'; run: BroadcastRun }[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    const order = (['delivery', 'signing', 'broadcast', 'prepared'] as Subject[]).filter((s) =>
      subjects.has(s),
    );
    if (round % 2 === 0) order.reverse();
    for (const subject of order) {
      const dir = path.join(base, `${subject}-${round}`);
      mkdirSync(dir, { recursive: true });
      process.stderr.write(`round ${round}/${rounds}: ${subject}...\n`);
      if (subject === 'broadcast' || subject === 'prepared') {
        const run = await runBroadcast(dir, subject === 'prepared');
        broadcasts.push({ round, kind: subject === 'prepared' ? 'ahead' : 'now', run });
        runs[subject].push(run);
      } else {
        runs[subject].push(await runReference(dir, subject === 'delivery'));
      }
      rmSync(dir, { recursive: true, force: true });
      const last = runs[subject].at(-1) as Run;
      process.stderr.write(`round ${round}/${rounds}: ${subject} ${last.rate.toFixed(0)} msg/s\n`);
    }
  }
} finally {
  await sink.stop();
  await txSink.stop();
  await dns.stop();
  rmSync(base, { recursive: true, force: true });
}

const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const p95 = (list: readonly number[]) =>
  [...list].sort((a, b) => a - b)[Math.floor(list.length * 0.95)] ?? Number.NaN;
const missing: Run = {
  rate: Number.NaN,
  seconds: Number.NaN,
  cpuMs: Number.NaN,
  mainMs: Number.NaN,
  load: Number.NaN,
  peakRssMb: Number.NaN,
};
const at = (subject: Subject, i: number) => runs[subject][i] ?? missing;
console.log(
  `\nbroadcast of ${contacts} contacts, ${kb} KB HTML, node ${process.version}; A: the delivery benchmark (${referenceMessages} messages signed at admission); B: the same, signed at delivery`,
);
console.log(
  `D: scheduled ${aheadSeconds} s ahead (prepared before its send time); C: sent at once (composed and signed in its window)`,
);
console.log(
  '| round | broadcast | A msg/s | B msg/s | broadcast msg/s | ratio to A | ratio to B | CPU ms/msg A / B / broadcast | main thread ms/msg A / B / broadcast | tx idle p50 / p95 ms | tx under broadcast p50 / p95 ms (n) | latency ratio | tx 202 p50 idle / under broadcast ms | prepared (s) | tx during preparation p50 / p95 ms | peak RSS MB A / B / broadcast | load avg at A / B / broadcast |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const { round, kind, run } of broadcasts) {
  const a = at('delivery', round - 1);
  const b = at('signing', round - 1);
  const prep = kind === 'ahead' ? `${run.prepared} (${f(run.prepareSeconds, 1)})` : '-';
  const during = kind === 'ahead' ? `${f(median(run.preparingMs), 1)} / ${f(p95(run.preparingMs), 1)}` : '-';
  console.log(
    `| ${round} | ${kind === 'ahead' ? 'D, ahead' : 'C, now'} | ${f(a.rate)} | ${f(b.rate)} | ${f(run.rate)} | ${f(run.rate / a.rate, 2)}x | ${f(run.rate / b.rate, 2)}x | ${f(a.cpuMs, 2)} / ${f(b.cpuMs, 2)} / ${f(run.cpuMs, 2)} | ${f(a.mainMs, 2)} / ${f(b.mainMs, 2)} / ${f(run.mainMs, 2)} | ${f(median(run.idleMs), 1)} / ${f(p95(run.idleMs), 1)} | ${f(median(run.underLoadMs), 1)} / ${f(p95(run.underLoadMs), 1)} (${run.underLoadMs.length}) | ${f(median(run.underLoadMs) / median(run.idleMs), 2)}x | ${f(median(run.idleApiMs), 1)} / ${f(median(run.underLoadApiMs), 1)} | ${prep} | ${during} | ${f(a.peakRssMb)} / ${f(b.peakRssMb)} / ${f(run.peakRssMb)} | ${f(a.load, 1)} / ${f(b.load, 1)} / ${f(run.load, 1)} |`,
  );
}
const ofKind = (kind: 'now' | 'ahead') => broadcasts.filter((b) => b.kind === kind);
const ratios = (kind: 'now' | 'ahead', subject: Subject) =>
  ofKind(kind).map(({ round, run }) => run.rate / at(subject, round - 1).rate);
const latencyRatios = (kind: 'now' | 'ahead') =>
  ofKind(kind).map(({ run }) => median(run.underLoadMs) / median(run.idleMs));
const rates = (subject: Subject) => median(runs[subject].map((r) => r.rate));
console.log(
  `\nmedians: A ${f(rates('delivery'))} msg/s, B ${f(rates('signing'))} msg/s, C (now) ${f(rates('broadcast'))} msg/s, D (ahead) ${f(rates('prepared'))} msg/s; ratio to A: C ${f(median(ratios('now', 'delivery')), 2)}x, D ${f(median(ratios('ahead', 'delivery')), 2)}x (target >= 0.8x); transactional latency ratio: C ${f(median(latencyRatios('now')), 2)}x, D ${f(median(latencyRatios('ahead')), 2)}x (target <= 2x); peak RSS ${f(Math.max(...broadcasts.map((b) => b.run.peakRssMb)))} MB (target <= 300); load average ${f(
    Math.min(
      ...Object.values(runs)
        .flat()
        .map((r) => r.load),
    ),
    1,
  )}–${f(
    Math.max(
      ...Object.values(runs)
        .flat()
        .map((r) => r.load),
    ),
    1,
  )}`,
);
