/**
 * Reads received mail off the event loop: a piscina pool running `analyze-worker.ts` (parse and
 * authenticate), sized by `smtp_in.workers`; with 0 workers the same work runs on the main thread.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Config } from '../platform/config/schema.js';
import type { AnalyzeResult, AnalyzeTask } from './analyze-worker.js';
import { createAuthenticator, type SmtpFacts } from './authenticate.js';
import { parseInbound } from './received.js';

export interface Analyzer {
  analyze(raw: Buffer, facts: SmtpFacts): Promise<AnalyzeResult>;
  close(): Promise<void>;
}

// Relative to the compiled file: dist/src/inbound/analyzer.js loads dist/src/inbound/analyze-worker.js.
const WORKER_FILE = fileURLToPath(new URL('./analyze-worker.js', import.meta.url));

export function createAnalyzer(config: Pick<Config, 'dns' | 'smtp_in'>): Analyzer {
  const threads = config.smtp_in.workers;
  if (threads === 0) {
    const authenticate = createAuthenticator(config);
    return {
      analyze: async (raw, facts) => {
        const [mail, auth] = await Promise.all([parseInbound(raw), authenticate(raw, facts)]);
        return { mail, auth };
      },
      close: async () => undefined,
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
    async analyze(raw, facts) {
      const transfer = new ArrayBuffer(raw.length);
      new Uint8Array(transfer).set(raw);
      const result = await pool.run(
        { raw: transfer, facts, config: taskConfig },
        { transferList: [transfer] },
      );
      // Buffers come back as plain Uint8Arrays from the structured clone.
      const attachments = result.mail.attachments.map((a) => ({ ...a, content: Buffer.from(a.content) }));
      return { auth: result.auth, mail: { ...result.mail, attachments } };
    },
    close: () => pool.close(),
  };
}
