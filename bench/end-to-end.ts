/**
 * End to end: N messages accepted, DKIM-signed (RSA-2048) and relayed to a loopback sink, from the first submission to the last delivery: Posthorn (API, engine on) against Postfix with OpenDKIM as its signing milter.
 *
 * Usage: scripts/bench end-to-end [--messages 5000] [--sizes 10,100] [--rounds 3] [--connections 32]
 *                                 [--batch]
 *
 * Why it exists: the delivery benchmark (the figure) starts its clock with the queue full
 * and so holds Posthorn's composing and signing, while its Postfix relays messages Posthorn
 * already signed. Here both subjects do the whole job a sending MTA does: Posthorn takes the
 * sends through `POST /v1/emails`, one message per request (`--batch`: `/v1/emails/batch`), with
 * its engine running; Postfix takes the same HTML message, unsigned, one per SMTP transaction,
 * and signs it at submission with OpenDKIM (how Postfix is deployed to sign; it cannot sign at
 * delivery). Both get `--connections` clients at a time. Each run is timed
 * from the first submission to the sink's last message; rounds alternate the subjects. Needs
 * Debian's postfix and opendkim packages, and root.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startOpenDkim } from './delivery/opendkim.js';
import { SMTPD_PORT, startPostfix, submit } from './delivery/postfix.js';
import { composedMessage, prepare, queueSends, SENDER_DOMAIN, spawnPosthorn } from './delivery/posthorn.js';
import { machineCpuMs } from './delivery/proc.js';
import { type Sink, startBenchMx } from './delivery/sink.js';
import { median, parseSizes, roundRatios, stopChild, waitForPort, waitReady } from './lib.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '5000' },
    sizes: { type: 'string', default: '10,100' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    batch: { type: 'boolean', default: false },
  },
});
const connections = Math.max(1, Number(values.connections));
/** Posthorn: one POST /v1/emails per message (as Postfix gets one SMTP transaction each), or batches. */
const sends = values.batch ? { concurrency: connections } : { perRequest: 1, concurrency: connections };
const messages = Number(values.messages);
const sizes = parseSizes(values.sizes);
const rounds = Math.max(1, Number(values.rounds));

interface Timed {
  /** Messages per second from the first submission to the last delivery. */
  readonly rate: number;
  readonly seconds: number;
  /** When the last submission was accepted, seconds into the run. */
  readonly acceptedSeconds: number;
  /** Busy CPU of the whole machine during the run, percent of one core. */
  readonly machinePercent: number;
}

/** Runs `submitAll` and waits for the sink to count `messages` more. */
async function timed(sink: Sink, submitAll: () => Promise<void>): Promise<Timed> {
  const base = sink.count;
  const machine0 = machineCpuMs();
  const t0 = performance.now();
  await submitAll();
  const accepted = performance.now();
  const t1 = await sink.waitFor(base + messages, 900_000);
  const machine1 = machineCpuMs();
  return {
    rate: messages / ((t1 - t0) / 1000),
    seconds: (t1 - t0) / 1000,
    acceptedSeconds: (accepted - t0) / 1000,
    machinePercent: ((machine1.busy - machine0.busy) / (t1 - t0)) * 100,
  };
}

const base = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-e2e-'));
const { dns, sink } = await startBenchMx();
const rows: { subject: string; kb: number; round: number; r: Timed }[] = [];

try {
  for (const kb of sizes) {
    // Unsigned: OpenDKIM signs it as Postfix accepts it.
    const unsigned = composedMessage(kb);
    for (let round = 1; round <= rounds; round++) {
      const tag = `${kb} KB, round ${round}/${rounds}`;
      const dir = path.join(base, `posthorn-${kb}-${round}`);
      mkdirSync(dir, { recursive: true });
      const prepared = await prepare(dir, dns, sink.port, 0, kb);
      const child = spawnPosthorn(prepared);
      try {
        await waitReady(`http://127.0.0.1:${prepared.port}/health`, performance.now(), 30_000);
        process.stderr.write(`posthorn ${tag}: sending ${messages} messages through the API...\n`);
        const url = `http://127.0.0.1:${prepared.port}`;
        const r = await timed(sink, () => queueSends(url, prepared.apiKey, messages, kb, sends));
        rows.push({ subject: 'posthorn', kb, round, r });
      } finally {
        await stopChild(child);
        rmSync(dir, { recursive: true, force: true });
      }

      const pfDir = path.join(base, `postfix-${kb}-${round}`);
      const dkim = await startOpenDkim(path.join(pfDir, 'opendkim'), SENDER_DOMAIN);
      const postfix = startPostfix(pfDir, sink.port, dkim.milter);
      try {
        await waitForPort(SMTPD_PORT, "postfix's smtpd");
        process.stderr.write(`postfix+opendkim ${tag}: submitting ${messages} messages over SMTP...\n`);
        const r = await timed(sink, () => submit(postfix, unsigned, messages, { hold: false, connections }));
        rows.push({ subject: 'postfix+opendkim', kb, round, r });
      } finally {
        postfix.stop();
        await dkim.stop();
        rmSync(pfDir, { recursive: true, force: true });
      }
    }
  }
} finally {
  await sink.stop();
  await dns.stop();
  rmSync(base, { recursive: true, force: true });
}

const f = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
console.log(
  `\nend to end (accept, sign, relay) to a loopback sink, ${messages} messages per run, ${connections} clients, posthorn ${values.batch ? 'batch' : 'single'} sends`,
);
console.log('| subject | body | round | messages/s | seconds | all accepted at s | machine CPU % |');
console.log('|---|---|---|---|---|---|---|');
for (const { subject, kb, round, r } of rows) {
  console.log(
    `| ${subject} | ${kb} KB | ${round} | ${f(r.rate)} | ${f(r.seconds, 1)} | ${f(r.acceptedSeconds, 1)} | ${f(r.machinePercent)} |`,
  );
}
console.log(
  '\n| body | posthorn msg/s (median) | postfix+opendkim msg/s (median) | ratio (median of rounds) |',
);
console.log('|---|---|---|---|');
for (const kb of sizes) {
  const of = (subject: string) => rows.filter((row) => row.subject === subject && row.kb === kb);
  const ph = of('posthorn');
  const pf = of('postfix+opendkim');
  const ratios = roundRatios(
    ph.map((p) => ({ round: p.round, rate: p.r.rate })),
    pf.map((p) => ({ round: p.round, rate: p.r.rate })),
  );
  console.log(
    `| ${kb} KB | ${f(median(ph.map((row) => row.r.rate)))} | ${f(median(pf.map((row) => row.r.rate)))} | ${f(median(ratios), 2)}x |`,
  );
}
