/**
 * Room `inbound/scanning/`, the last stage. Attachments of stored mail scanned by ClamAV
 * (scanner.ts) and their state recorded (this file).
 *
 * It must never let bytes be downloaded before clamd called them clean, nor make receiving wait for
 * a scan.
 *
 * Scans stored attachments with ClamAV and records their state: `pending` until a verdict,
 * `clean` (the only state in which the bytes may be downloaded), `infected` (with the signature),
 * or `error` (clamd answered but could not scan it, `clamav.max_attempts` times; e.g. an
 * attachment over clamd's StreamMaxLength), so nothing is retried forever.
 *
 * While clamd is down nothing is counted against an attachment: it stays `pending`, the run stops,
 * and the next run (every `clamav.rescan_interval`, or at once when the health probe sees clamd
 * back, or when new attachments arrive) scans it. The health probe reports the scanner `degraded`
 * while clamd does not answer; inbound mail is still accepted meanwhile.
 *
 * A stop never waits for clamd: it closes the scanner, which ends a scan in flight at once (clamd
 * may take `clamav.timeout_ms` to answer, or never). That attachment gets no verdict and no
 * attempt: it stays `pending`, and the first run of the next start scans it.
 */
import type SQLite from 'better-sqlite3';
import type { ProbeResult } from '../../health/registry.js';
import { parseDuration } from '../../platform/config/duration.js';
import type { Config } from '../../platform/config/schema.js';
import type { Db } from '../../platform/db/database.js';
import { createGroupCommit } from '../../platform/db/group-commit.js';
import type { Logger } from '../../platform/log.js';
import { passRunner } from '../../platform/pass-runner.js';
import type { InboundStore } from '../store.js';
import { clamavHealth, type Scanner } from './scanner.js';

export interface ScanEngine {
  /** Runs soon (new attachments, or clamd came back). */
  kick(): void;
  /** Resolves when a run (started now if none is running) has finished. */
  runNow(): Promise<void>;
  probe(): Promise<ProbeResult>;
  /** Ends the runs and closes the scanner (a scan in flight ends unrecorded); resolves once verdicts are written. */
  stop(): Promise<void>;
}

const BATCH = 64;
const PARALLEL = 6;
/** The shortest claim on an attachment being scanned (see `leaseMs`). */
const CLAIM_MS = 5 * 60_000;

type ScanResult = 'done' | 'clamd_down' | 'stopped';

interface Verdict {
  readonly id: string;
  readonly fields: Parameters<InboundStore['recordScan']>[2];
}

export function startScanEngine(deps: {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly store: InboundStore;
  readonly scanner: Scanner;
  readonly config: Config['clamav'];
  readonly log: Logger;
}): ScanEngine {
  const { store, scanner, config, log } = deps;
  const intervalMs = parseDuration(config.rescan_interval);
  // Where several nodes scan (PostgreSQL), how long a claimed attachment is this node's: longer
  // than a batch's scans can take, so that no other node scans it meanwhile.
  const leaseMs = Math.max(CLAIM_MS, 2 * Math.ceil(BATCH / PARALLEL) * config.timeout_ms);
  // Verdicts of attachments scanned together are written in one transaction, without an fsync on
  // the event loop: a verdict lost to a power cut leaves its attachment pending, scanned again.
  const recordVerdict = createGroupCommit(
    deps,
    (trx, verdict: Verdict) => store.recordScan(trx, verdict.id, verdict.fields),
    { lingerMs: 50, durability: 'relaxed' },
  );
  const runner = passRunner(run, (error: unknown) => log.error({ err: error }, 'attachment scan run failed'));

  /** Scans one attachment; its verdict is written in the background, into `saves`. */
  async function scanOne(
    attachment: { id: string; scan_attempts: number },
    saves: Promise<void>[],
  ): Promise<ScanResult> {
    const record = (verdict: Verdict) => {
      saves.push(recordVerdict(verdict));
    };
    const content = await store.attachmentContent(attachment.id);
    if (content === undefined) return 'done';
    const outcome = await scanner.scan(content);
    // The stop closed the scanner under this scan: its error says nothing about the attachment.
    if (runner.stopped && outcome.state === 'error') return 'stopped';
    const at = Date.now();
    if (outcome.state === 'clean') {
      record({ id: attachment.id, fields: { state: 'clean', at } });
      return 'done';
    }
    if (outcome.state === 'infected') {
      log.warn({ attachment: attachment.id, signature: outcome.signature }, 'infected attachment');
      record({ id: attachment.id, fields: { state: 'infected', signature: outcome.signature, at } });
      return 'done';
    }
    // An error while clamd does not even answer PING is clamd's absence, not this attachment's fault.
    if (!(await scanner.ping())) return 'clamd_down';
    const attempts = attachment.scan_attempts + 1;
    if (attempts >= config.max_attempts) {
      log.warn(
        { attachment: attachment.id, reason: outcome.reason, attempts },
        'attachment could not be scanned',
      );
      record({ id: attachment.id, fields: { state: 'error', detail: outcome.reason, attempts, at } });
    } else {
      record({
        id: attachment.id,
        fields: {
          state: 'pending',
          detail: outcome.reason,
          attempts,
          scanAfter: at + intervalMs * attempts,
          at,
        },
      });
    }
    return 'done';
  }

  async function run(): Promise<void> {
    for (;;) {
      const due = await store.claimScans(Date.now(), BATCH, leaseMs);
      if (due.length === 0) return;
      let down = false;
      let next = 0;
      const saves: Promise<void>[] = [];
      const unscanned = new Set(due.map((attachment) => attachment.id));
      const worker = async () => {
        while (!down && !runner.stopped && next < due.length) {
          const attachment = due[next++] as (typeof due)[number];
          const result = await scanOne(attachment, saves);
          if (result === 'clamd_down') down = true;
          if (result === 'done') unscanned.delete(attachment.id);
        }
      };
      try {
        await Promise.all(Array.from({ length: PARALLEL }, worker));
        await Promise.all(saves);
      } finally {
        // Claims this run did not use (clamd went away, the stop, a failure) are given back for the next run.
        if (unscanned.size > 0)
          await store
            .releaseScans([...unscanned], Date.now())
            .catch((error: unknown) =>
              log.warn({ err: error }, 'unscanned attachments could not be given back'),
            );
      }
      if (down) {
        log.warn('clamd does not answer; attachments stay pending until it does');
        return;
      }
      if (due.length < BATCH || runner.stopped) return;
    }
  }

  /**
   * The run going on, or a new one. Asked while a run goes on, one more follows it (passRunner):
   * attachments stored while this run was finishing are not left until the next tick.
   */
  const runNow = (): Promise<void> => {
    if (runner.stopped) return Promise.resolve();
    runner.wake();
    return runner.running ?? Promise.resolve();
  };

  const timer = setInterval(() => void runNow(), intervalMs);
  timer.unref();
  void runNow();

  return {
    kick: () => void runNow(),
    runNow,
    async probe() {
      if ((await clamavHealth(scanner)) === 'degraded') {
        const where = config.socket || `${config.host}:${config.port}`;
        return { status: 'degraded', detail: `clamd at ${where} does not answer; attachments stay pending` };
      }
      if ((await store.countPending()) > 0) void runNow();
      return { status: 'operational' };
    },
    async stop() {
      const runEnded = runner.stop();
      clearInterval(timer);
      scanner.close();
      await runEnded;
    },
  };
}
