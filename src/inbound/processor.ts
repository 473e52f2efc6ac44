/**
 * Turns spooled transactions into their effects: routed mail is stored per project
 * (`received.ts`), DSNs to VERP addresses become bounce or delay outcomes and complaint reports
 * become complaints (`feedback.ts`). A receipt row commits with each transaction's effects, so a
 * spool file that survives a crash after the commit is recognised and only removed. Transactions
 * processed close together share one database transaction (`platform/db/group-commit.ts`),
 * committed without an fsync on the event loop; the spool file is removed after a WAL barrier has
 * made it durable.
 *
 * Slow work (MIME parsing, report reading and authentication's DNS lookups, on worker threads)
 * happens before the database transaction; the transaction itself only writes
 * (`processor-effects.ts`). Files left in the spool by a crash are picked up at start.
 *
 * A poison message never keeps the server busy or down (`processor-poison.ts`): a transaction that
 * keeps failing is retried with backoff and, after `MAX_FAILURES`, given up on; so is a file left in
 * the spool that `MAX_UNFINISHED_RUNS` earlier runs of the process started and never finished. Given
 * up on, a message is stored without processing (envelope and header fields, never scanned), never
 * processed fully again; its file goes to the spool's `failed` directory. A left-over file that one
 * run already started and did not finish is processed alone, nothing else beside it: a process
 * killed from outside (an operator's SIGKILL, the OOM killer choosing it for another's sake) while
 * many messages were in progress then counts against one message only, so that a healthy message
 * is not given up on for having been in progress at two unrelated kills.
 *
 * A stop waits for the messages in progress a few seconds at most (`processor-stop.ts`): past that
 * they are left in the spool for the next start, their abandoned work writes nothing more, and the
 * runs this process counted for them are taken back (a clean stop is no crash).
 */
import type SQLite from 'better-sqlite3';
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import { commitBarrier } from '../platform/db/durability.js';
import { createGroupCommit } from '../platform/db/group-commit.js';
import type { Logger } from '../platform/log.js';
import type { Analyzer } from './analysis/analyzer.js';
import type { Spool, SpooledMessage } from './listener/spool.js';
import { createPreparer, createWriter, type Prepared, type UnsubscribePort } from './processor-effects.js';
import { createPoison, type GiveUp, MAX_FAILURES } from './processor-poison.js';
import { createProcessorStop } from './processor-stop.js';
import type { FeedbackHandler } from './reports/feedback.js';
import type { InboundStore } from './store.js';
import type { Threads } from './threads/threads.js';

export interface ProcessorDeps {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly log: Logger;
  readonly spool: Spool;
  readonly store: InboundStore;
  readonly threads: Threads;
  readonly events: EventService;
  /** Parses and authenticates received mail and reads reports (a worker pool). */
  readonly analyzer: Analyzer;
  readonly feedback: FeedbackHandler;
  /** Mail to a broadcast message's unsubscribe address (absent: none is accepted). */
  readonly unsubscribe?: UnsubscribePort | undefined;
  /** Told when attachments were stored, so the scanner starts at once. */
  readonly onAttachments: () => void;
  readonly concurrency?: number;
  /** Bytes of messages in progress at once (`smtp_in.max_processing_bytes`); one message always runs. */
  readonly maxBytes?: number;
}

export interface Processor {
  /**
   * Queues a spooled transaction of `bytes` (they count against `maxBytes`); `message`, the
   * listener's copy of a small one, spares reading back a file just written.
   */
  enqueue(id: string, bytes: number, message?: SpooledMessage): void;
  /** Queues whatever a previous run left in the spool. */
  recover(): Promise<number>;
  /** Resolves when nothing is queued or running (tests, benchmarks). */
  idle(): Promise<void>;
  /**
   * Stops taking work and waits for what is running, at most `PROCESSOR_STOP_MS`; what is still
   * running then is left in the spool for the next start.
   */
  stop(): Promise<void>;
  /** Messages in progress now and the bytes of their spool files. */
  load(): { readonly messages: number; readonly bytes: number };
}

/** One queued transaction and the size of its spool file. */
interface Entry {
  readonly id: string;
  readonly bytes: number;
  /** Processed with nothing else in progress: a left-over file an earlier run did not finish. */
  readonly alone?: boolean;
}

/** Bytes of fresh messages handed over in memory (small ones only, `HAND_OFF_BYTES`) kept for the
 * processor while they wait; beyond it they are read back from the spool. */
const MAX_IN_MEMORY_BYTES = 64 * 1024 * 1024;
/** A processed message waits this long for others to share its commit. */
const COMMIT_LINGER_MS = 100;
/** Messages in the pipeline at once. Above the group commit's batch of 64, so that under load a
 * batch fills and commits at once instead of every batch waiting out the linger (which capped
 * the processed rate at concurrency / linger). */
const CONCURRENCY = 128;
/** The default of `smtp_in.max_processing_bytes`: each message in progress is held several times
 * over (read back, copied to a worker, parsed), so 128 at 20 MB each once took 2.7 GB. */
const MAX_BYTES = 128 * 1024 * 1024;
const RETRY_BASE_MS = 1_000;
const RETRY_CAP_MS = 10 * 60_000;

export function createProcessor(deps: ProcessorDeps): Processor {
  const { log } = deps;
  const concurrency = deps.concurrency ?? CONCURRENCY;
  const maxBytes = deps.maxBytes ?? MAX_BYTES;
  const maxInMemory = Math.min(MAX_IN_MEMORY_BYTES, maxBytes);
  const queue: Entry[] = [];
  const queued = new Set<string>();
  // Fresh messages as the listener wrote them, while few enough are waiting; others are read back.
  const inMemory = new Map<string, SpooledMessage>();
  let inMemoryBytes = 0;
  // Files found in the spool at start whose run has not been counted yet (`spool.countRun`).
  const recovered = new Set<string>();
  // Every write below asks `halt.live()` first: work a stop abandoned must write nothing.
  const halt = createProcessorStop(deps);
  const failures = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let running = 0;
  let runningBytes = 0;
  let runningAlone = false;
  let stopped = false;
  let idleWaiters: Array<() => void> = [];

  const settle = () => {
    if (running > 0 || queue.length > 0 || timers.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  // In arrival order, while both the count and the bytes in progress allow; a message larger
  // than the whole budget runs alone rather than never, and so does a suspect (`Entry.alone`).
  const pump = () => {
    while (!stopped && !runningAlone && running < concurrency && queue.length > 0) {
      const entry = queue[0] as Entry;
      if (running > 0 && (entry.alone === true || runningBytes + entry.bytes > maxBytes)) break;
      queue.shift();
      running += 1;
      runningBytes += entry.bytes;
      runningAlone = entry.alone === true;
      attempt(entry).finally(() => {
        running -= 1;
        runningBytes -= entry.bytes;
        if (entry.alone === true) runningAlone = false;
        pump();
        settle();
      });
    }
  };

  const enqueue = (id: string, bytes: number, message?: SpooledMessage, alone = false) => {
    if (stopped || queued.has(id)) return;
    if (message && inMemoryBytes + message.raw.length <= maxInMemory) {
      inMemory.set(id, message);
      inMemoryBytes += message.raw.length;
    }
    queued.add(id);
    queue.push({ id, bytes, alone });
    pump();
  };

  /** Processes one transaction; a failure is retried later, or given up on after `MAX_FAILURES`. */
  async function attempt(entry: Entry): Promise<void> {
    const { id } = entry;
    try {
      await processOne(entry);
      failures.delete(id);
      queued.delete(id);
      halt.finished(id);
    } catch (error) {
      // Abandoned by the stop: not a failure; the file waits for the next start.
      if (halt.abandoned) return;
      const count = (failures.get(id) ?? 0) + 1;
      if (count < MAX_FAILURES) {
        failures.set(id, count);
        retryLater(entry, count, error);
        return;
      }
      failures.delete(id);
      const reason = `processing failed ${count} times; the last error: ${errorText(error)}`;
      await giveUp(entry, { reason, store: true }).catch((failure: unknown) => {
        if (halt.abandoned) return;
        log.error(
          { err: failure, receipt: id, spool: deps.spool.dir, reason },
          'inbound message keeps failing and could not be given up on (recorded as failed and moved aside); left in the spool until the next start',
        );
      });
      queued.delete(id);
      halt.finished(id);
    }
  }

  function retryLater(entry: Entry, count: number, error: unknown): void {
    const delay = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (count - 1));
    log.warn(
      { err: error, receipt: entry.id, retry_in_ms: delay },
      'inbound message processing failed; will retry',
    );
    const timer = setTimeout(() => {
      timers.delete(timer);
      queued.delete(entry.id);
      enqueue(entry.id, entry.bytes);
      settle();
    }, delay);
    timer.unref();
    timers.add(timer);
  }

  // Batches commit without waiting for the disk; a spool file goes only once its commit has
  // passed a WAL barrier (an fsync off the event loop), so a power cut loses nothing.
  // A batch may start after the stop abandoned a message queued in it: it is rolled back alone.
  const write = createWriter(deps);
  const commit = createGroupCommit<Prepared, number>(
    deps,
    async (trx, prepared) => {
      halt.live();
      return write(trx, prepared);
    },
    { lingerMs: COMMIT_LINGER_MS, afterCommit: () => deps.events.notify(), durability: 'relaxed' },
  );
  const durable = commitBarrier(deps.db, deps.sqlite);
  const prepare = createPreparer(deps);
  const poison = createPoison({ spool: deps.spool, log, halt, commit, durable });
  const giveUp = (entry: Entry, reason: GiveUp) => poison.giveUp(entry, reason);

  async function processOne({ id, bytes }: Entry): Promise<void> {
    let spooled = inMemory.get(id);
    if (spooled) {
      inMemory.delete(id);
      inMemoryBytes -= spooled.raw.length;
    }
    if (!spooled) {
      // A file from an earlier run (or an attempt whose barrier failed) may have been committed
      // already; its commit is made durable before the file goes. One given up on goes to
      // `failed/`, never away: its move may be what did not happen (the move failed, or the
      // process died after the commit).
      const receipt = await deps.store.receiptKind(id);
      if (receipt !== undefined) {
        await durable();
        halt.live();
        await halt.change(receipt === 'failed' ? deps.spool.moveToFailed(id) : deps.spool.remove(id));
        return;
      }
      if (recovered.delete(id)) {
        halt.live();
        const suspected = await poison.check(id);
        if (suspected !== undefined) {
          await giveUp({ id, bytes }, suspected);
          return;
        }
      }
      spooled = await deps.spool.read(id);
    }
    const effects = await prepare(spooled);
    halt.live();
    const attachments = await commit({ id, spooled, effects });
    halt.live();
    if (attachments > 0) deps.onAttachments();
    await durable();
    halt.live();
    await halt.change(deps.spool.remove(id));
  }

  return {
    enqueue,
    async recover() {
      const files = await deps.spool.pending();
      for (const { id } of files) recovered.add(id);
      const suspects = new Set<string>();
      for (const { id } of files) if ((await deps.spool.runsOf(id)) > 0) suspects.add(id);
      for (const { id, bytes } of files) enqueue(id, bytes, undefined, suspects.has(id));
      if (files.length > 0)
        log.info({ count: files.length }, 'processing inbound messages left in the spool');
      return files.length;
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settle();
      });
    },
    load: () => ({ messages: running, bytes: runningBytes }),
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      queue.length = 0;
      const idle = async () => {
        while (running > 0 && !halt.abandoned) await new Promise((resolve) => setTimeout(resolve, 10));
      };
      await halt.stop(idle, () => running);
      settle();
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
