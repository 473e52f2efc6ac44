/**
 * Room `inbound/analysis/`, after the listener. A spooled message read: authenticated
 * (authenticate.ts: SPF, DKIM, DMARC, ARC), parsed when it is routed mail (parse.ts,
 * received-fallback.ts), its DSN or ARF report read when it went to a bounce or complaint address
 * (reports.ts, dsn.ts, arf.ts, mime.ts); by this pool on worker
 * threads (analyze-worker.ts), or on the main thread with `smtp_in.workers = 0`.
 *
 * It must never write the database or the spool, nor decide what the message does (threads/ and
 * reports/ do): it only reads.
 *
 * Reads received mail off the event loop: a piscina pool running `analyze-worker.ts` (authenticate,
 * and parse or read the report), sized by `smtp_in.workers`; with 0 workers the same work runs on
 * the main thread.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Config } from '../../platform/config/schema.js';
import { type AnalyzeResult, type AnalyzeTask, type AnalyzeWants, analyzeWith } from './analyze-worker.js';
import { createAuthenticator, type SmtpFacts } from './authenticate.js';

export interface Analyzer {
  analyze(raw: Buffer, facts: SmtpFacts, wants: AnalyzeWants): Promise<AnalyzeResult>;
  /** Ends the threads, and any task still on them (it rejects). */
  close(): Promise<void>;
}

// Relative to the compiled file: dist/src/inbound/analysis/analyzer.js loads dist/src/inbound/analysis/analyze-worker.js.
const WORKER_FILE = fileURLToPath(new URL('./analyze-worker.js', import.meta.url));

export function createAnalyzer(config: Pick<Config, 'dns' | 'smtp_in'>): Analyzer {
  const threads = config.smtp_in.workers;
  if (threads === 0) {
    const authenticate = createAuthenticator(config);
    return {
      analyze: (raw, facts, wants) => analyzeWith(authenticate, raw, facts, wants),
      // As the pool's destroy ends a thread's lookups with it: a stop must not wait on DNS.
      close: async () => authenticate.close(),
    };
  }
  const pool = new Piscina<AnalyzeTask, AnalyzeResult>({
    filename: WORKER_FILE,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // Much of a task is waiting for DNS: let each thread work on several messages at once.
    concurrentTasksPerWorker: 16,
  });
  const taskConfig = { dns: config.dns, smtp_in: config.smtp_in };
  return {
    async analyze(raw, facts, wants) {
      const transfer = new ArrayBuffer(raw.length);
      new Uint8Array(transfer).set(raw);
      const result = await pool.run(
        { raw: transfer, facts, wants, config: taskConfig },
        { transferList: [transfer] },
      );
      if (!result.mail) return result;
      // Buffers come back as plain Uint8Arrays from the structured clone.
      const attachments = result.mail.attachments.map((a) => ({ ...a, content: Buffer.from(a.content) }));
      return { ...result, mail: { ...result.mail, attachments } };
    },
    // Ends the threads at once: the processor's stop has waited (a few seconds at most) for what it
    // would finish, and abandoned the rest. A graceful close would wait for a task stuck on DNS.
    close: () => pool.destroy(),
  };
}
