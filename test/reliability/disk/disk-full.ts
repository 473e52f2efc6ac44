/**
 * The data disk filling up: the serve process runs on a small tmpfs; sends are made, the disk is
 * filled to the last byte by another file, sends keep coming (each must be a 202 that is then
 * delivered, or a 503 saying the disk is full: never a 500, never a crash), the file is removed,
 * and sends must be accepted again without a restart. Every 202 must reach the MX.
 */
import { openSync, closeSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { startDnsServer } from '../../helpers/dns-server.js';
import { api, DOMAIN, EHLO, setUpDomain } from '../chaos/chaos.js';
import { startChaosMx } from '../chaos/mx.js';
import { spawnPosthorn } from '../serve.js';

export interface DiskOptions {
  readonly cycles: number;
  readonly sendsPerPhase: number;
  readonly diskBytes: number;
  readonly drainTimeoutMs: number;
  readonly log: (line: string) => void;
}

export interface DiskSummary {
  cycles: number;
  accepted: number;
  refused503: number;
  otherErrors: string[];
  lost: string[];
  duplicated: number;
  resumeSeconds: number[];
  restarts: number;
  refusalText: string;
  peakRssMb: number;
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes 256 KB blocks until the disk refuses one (ENOSPC); returns the file. */
function fill(dir: string): string {
  const file = join(dir, 'filler.bin');
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(256 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  // The last partial block: whatever is left, byte by byte in 4 KB steps.
  const small = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, small);
  } catch {
    // Full.
  } finally {
    closeSync(fd);
  }
  return file;
}

export async function runDiskFull(options: DiskOptions): Promise<DiskSummary> {
  const started = Date.now();
  const dns = await startDnsServer();
  dns.set(EHLO, 'A', ['127.0.0.1']);
  dns.set('example.net', 'MX', [{ preference: 10, exchange: 'mx.example.net' }]);
  dns.set('mx.example.net', 'A', ['127.0.0.1']);
  const mx = await startChaosMx();
  const serve = await spawnPosthorn({
    diskBytes: options.diskBytes,
    sections: {
      dns: { servers: [dns.address], timeout_ms: 1000 },
      delivery: {
        enabled: true,
        hostname: EHLO,
        port: mx.port,
        sending_ips: ['192.0.2.25'],
        retry_schedule: ['1s'],
        poll_interval: '100ms',
        // Renewals fail while the disk is full: long enough to outlast a full phase on a busy host.
        lease: '30s',
      },
      limits: { sends_per_minute_per_key: 1_000_000, sends_per_hour_per_recipient: 1_000_000 },
    },
  });
  const summary: DiskSummary = {
    cycles: 0,
    accepted: 0,
    refused503: 0,
    otherErrors: [],
    lost: [],
    duplicated: 0,
    resumeSeconds: [],
    restarts: 0,
    refusalText: '',
    peakRssMb: 0,
    seconds: 0,
  };
  const accepted = new Set<string>();
  let n = 0;
  const send = async (): Promise<number> => {
    const subject = `disk-${n++}`;
    const res = await api(serve, 'POST', '/v1/emails', {
      from: `Disk <hello@${DOMAIN}>`,
      to: [`d${n}@example.net`],
      subject,
      text: `message ${subject} ${'padding '.repeat(200)}`,
    }).catch((error: Error) => ({ status: 0, text: error.message, body: {} }));
    if (res.status === 202) accepted.add(subject);
    else if (res.status === 503) {
      summary.refused503 += 1;
      summary.refusalText = res.text;
    } else summary.otherErrors.push(`${subject}: ${res.status} ${res.text.slice(0, 200)}`);
    summary.peakRssMb = Math.max(summary.peakRssMb, serve.memory().peakMb);
    return res.status;
  };
  try {
    await serve.start();
    const pid = serve.pid();
    await setUpDomain(serve, dns);
    for (let cycle = 0; cycle < options.cycles; cycle++) {
      for (let i = 0; i < options.sendsPerPhase; i++) await send();
      const filler = fill(serve.dataDir);
      options.log(`disk: cycle ${cycle + 1}: the disk is full`);
      // Sends while full: keep going until the server has refused several.
      let refusedThisCycle = 0;
      for (let i = 0; i < options.sendsPerPhase * 4 && refusedThisCycle < 5; i++) {
        if ((await send()) === 503) refusedThisCycle += 1;
      }
      await sleep(2000); // the engines meet the full disk too (delivery, outcomes, events)
      rmSync(filler);
      const freedAt = Date.now();
      // Service resumes by itself: the same process accepts again.
      for (;;) {
        if ((await send()) === 202) break;
        if (Date.now() - freedAt > 60_000)
          throw new Error('sends still refused 60 s after the disk had room again');
        await sleep(250);
      }
      summary.resumeSeconds.push((Date.now() - freedAt) / 1000);
      if (serve.pid() !== pid || !serve.child() || serve.child()?.exitCode !== null) summary.restarts += 1;
      for (let i = 0; i < options.sendsPerPhase; i++) await send();
      summary.cycles += 1;
    }
    const deadline = Date.now() + options.drainTimeoutMs;
    while (Date.now() < deadline && [...accepted].some((s) => !mx.seen.has(s))) await sleep(500);
    if (serve.child()?.exitCode !== null || serve.pid() !== pid) summary.restarts += 1;
    summary.accepted = accepted.size;
    for (const s of accepted) {
      const copies = mx.seen.get(s) ?? 0;
      if (copies === 0) summary.lost.push(s);
      if (copies > 1) summary.duplicated += copies - 1;
    }
  } finally {
    summary.seconds = Math.round((Date.now() - started) / 1000);
    if (summary.lost.length > 0 || summary.otherErrors.length > 0) options.log(serve.stderr().slice(-3000));
    await serve.dispose().catch(() => {});
    await mx.close();
    await dns.stop();
  }
  return summary;
}

export function formatDiskSummary(s: DiskSummary): string {
  return [
    `disk full: cycles ${s.cycles}, messages accepted ${s.accepted}, lost ${s.lost.length}, duplicated ${s.duplicated}`,
    `refused with 503 while full ${s.refused503}, other errors ${s.otherErrors.length}, process restarts ${s.restarts}`,
    `resumed by itself after ${s.resumeSeconds.map((x) => `${x.toFixed(1)} s`).join(', ')}; refusal: ${s.refusalText}`,
    `peak RSS ${s.peakRssMb.toFixed(1)} MB, ${s.seconds} s`,
  ].join('\n');
}
