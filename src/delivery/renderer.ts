/**
 * The pool of render workers (piscina): each task composes one message and DKIM-signs it on a
 * worker thread (`render-task.ts`), so the event loop only moves bytes. The pool is created when
 * the engine starts, never when services are built (CLI commands build services too).
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { workerCount } from '../dkim/signer.js';
import type { RenderTask } from './render-task.js';

export interface Renderer {
  /** The finished message bytes (signed when `task.dkim` names keys). */
  render(task: RenderTask): Promise<Buffer>;
  readonly threads: number;
  close(): Promise<void>;
}

// Relative to the compiled file: dist/src/delivery/renderer.js loads dist/src/delivery/render-task.js.
const WORKER_FILE = fileURLToPath(new URL('./render-task.js', import.meta.url));

/**
 * @example const renderer = createRenderer(config.dkim.workers, kernel.store.file); await renderer.render(task);
 */
export function createRenderer(workers: number, databaseFile: string): Renderer {
  const threads = workerCount(workers);
  const pool = new Piscina<RenderTask, Uint8Array>({
    filename: WORKER_FILE,
    // Each worker reads message bodies on its own read-only connection.
    workerData: { databaseFile },
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // A render allocates a few times the message size and keeps nothing: a small young
    // generation collects it promptly instead of letting each worker's heap swell (RSS).
    resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 256 },
  });
  return {
    threads,
    async render(task) {
      const bytes = await pool.run(task);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    async close() {
      await pool.close();
    },
  };
}
