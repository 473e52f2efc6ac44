/**
 * The pool of render workers (piscina): each task composes one message and DKIM-signs it on a
 * worker thread (`render-task.ts`), so the event loop only moves bytes. The pool is created when the
 * delivery engine starts, or with the first message rendered when it does not run (`lazyRenderer`),
 * never when services are built (CLI commands build services too).
 *
 * Messages come back in a slot of shared memory (message-slab.ts) that stays the caller's until
 * it calls `release()`, once the SMTP transaction that sent the bytes is over.
 */
import { fileURLToPath } from 'node:url';
import type { WorkerAccess } from '../../platform/db/worker-reader.js';
import { Piscina } from 'piscina';
import { workerCount } from '../../dkim/signer.js';
import { discardBuffer } from './discard-buffer.js';
import { markStuffed } from './dot-stuffing.js';
import { MessageSlab, slotView } from './message-slab.js';
import type { RenderOutput, RenderTask } from './render-task.js';
import type { RawMessage } from './worker-queries.js';

/** A rendered message and the memory it lives in. */
export interface RenderedMessage {
  /** The finished message (signed when the task named keys), dot-stuffed for DATA. */
  readonly bytes: Buffer;
  /**
   * The message's size for MAIL FROM's SIZE= (RFC 1870 §3): its octets without the dots that
   * stuffing added (and without the final dot), so fewer than `bytes` when a line starts with ".".
   */
  readonly size: number;
  /** Gives the memory back; the bytes must not be used afterwards. Safe to call twice. */
  release(): void;
}

/**
 * The rendering made at admission as the store read it with its message (already dot-stuffed for
 * DATA, worker-queries.ts), sent without a render thread. `release()` frees its memory at once
 * when the buffer is the whole of its own allocation (as the driver's decoding makes it), as the
 * render threads do with what they read: V8 would otherwise keep tens of MB of them until its next
 * full collection.
 */
export function storedMessage(raw: RawMessage): RenderedMessage {
  let released = false;
  return {
    bytes: markStuffed(raw.bytes),
    size: raw.size,
    release() {
      if (released) return;
      released = true;
      discardBuffer(raw.bytes);
    },
  };
}

export interface Renderer {
  render(task: RenderTask): Promise<RenderedMessage>;
  readonly threads: number;
  close(): Promise<void>;
}

export interface RendererOptions {
  /** Slots of the shared slab: rendered messages waiting for or in an SMTP transaction. */
  readonly slots?: number;
  /** Bytes per slot; a larger message is handed over in a buffer of its own. */
  readonly slotSize?: number;
}

// Relative to the compiled file: dist/src/delivery/compose/renderer.js loads dist/src/delivery/compose/render-task.js.
const WORKER_FILE = fileURLToPath(new URL('./render-task.js', import.meta.url));
const DEFAULT_SLOTS = 256;
const DEFAULT_SLOT_SIZE = 256 * 1024;

/**
 * @example const renderer = createRenderer(config.dkim.workers, kernel.store.workerAccess);
 * const message = await renderer.render(task); try { send(message.bytes) } finally { message.release() }
 */
export function createRenderer(
  workers: number,
  store: WorkerAccess | string,
  options: RendererOptions = {},
): Renderer {
  const access: WorkerAccess = typeof store === 'string' ? { engine: 'sqlite', file: store } : store;
  const threads = workerCount(workers);
  const slab = new MessageSlab(options.slots ?? DEFAULT_SLOTS, options.slotSize ?? DEFAULT_SLOT_SIZE);
  const pool = new Piscina<RenderTask, RenderOutput>({
    filename: WORKER_FILE,
    // Each worker reads message bodies on its own read-only connection and writes into the slab.
    workerData: { access, slab: { buffer: slab.buffer, slotSize: slab.slotSize } },
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // A worker takes its next task from its own queue the moment one is done, instead of idling
    // until the event loop (busy with SMTP writes and commits) hands it one: with one task at a
    // time the workers stood idle a third of the time. Rendering is synchronous but for the
    // signature, so tasks only wait their turn (BENCHMARKS.md, "Delivery engine").
    concurrentTasksPerWorker: 8,
    // A render allocates a few times the message size and keeps nothing: a small young
    // generation collects it promptly instead of letting each worker's heap swell (RSS). 8 MB:
    // each worker's share of the peak RSS of a broadcast is a few MB lower than with 16, the
    // rate the same (young 4–64 MB made no difference to it, BENCHMARKS.md).
    resourceLimits: { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 },
  });
  return {
    threads,
    async render(task) {
      const slot = slab.take();
      let output: RenderOutput;
      try {
        output = await pool.run({ ...task, slot });
      } catch (error) {
        if (slot !== null) slab.release(slot);
        throw error;
      }
      if ('bytes' in output) {
        if (slot !== null) slab.release(slot);
        const moved = output.bytes;
        const bytes = Buffer.from(moved.buffer, moved.byteOffset, moved.byteLength);
        return { bytes: markStuffed(bytes), size: output.size, release: () => {} };
      }
      const bytes = slotView(slab, slot as number).subarray(output.offset, output.offset + output.length);
      let released = false;
      return {
        bytes: markStuffed(bytes),
        size: output.size,
        release() {
          if (released) return;
          released = true;
          slab.release(slot as number);
        },
      };
    },
    async close() {
      await pool.close();
    },
  };
}

/**
 * A renderer whose worker pool starts with the first message, so a `serve` without the delivery
 * engine that accepts no mail starts no render threads.
 */
export function lazyRenderer(
  workers: number,
  store: WorkerAccess | string,
  options: RendererOptions = {},
): Renderer {
  let pool: Renderer | null = null;
  return {
    threads: workerCount(workers),
    render(task) {
      pool ??= createRenderer(workers, store, options);
      return pool.render(task);
    },
    async close() {
      await pool?.close();
    },
  };
}
