/**
 * Turns spooled transactions into their effects: routed mail is stored per project
 * (`received.ts`), DSNs to VERP addresses become bounce or delay outcomes and complaint reports
 * become complaints (`feedback.ts`). A receipt row commits with each transaction's effects, so a
 * spool file that survives a crash after the commit is recognised and only removed. Transactions
 * processed close together share one database transaction (`platform/db/group-commit.ts`),
 * committed without an fsync on the event loop; the spool file is removed after a WAL barrier has
 * made it durable.
 *
 * Slow work (MIME parsing and authentication's DNS lookups, on worker threads) happens before the
 * database transaction; the transaction itself only writes. Files left in the spool by a crash are picked up at start.
 * A file that keeps failing is retried with backoff and, after `MAX_FAILURES`, left in place with
 * an error in the log: it is never deleted unprocessed.
 */
import type SQLite from 'better-sqlite3';
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import { walBarrier } from '../platform/db/durability.js';
import { createGroupCommit } from '../platform/db/group-commit.js';
import type { Logger } from '../platform/log.js';
import type { Analyzer } from './analyzer.js';
import type { FeedbackHandler } from './feedback.js';
import { type RoutedDelivery, storeReceived } from './received.js';
import type { InboundRecipient } from './recipients.js';
import type { Spool, SpooledMessage } from './spool.js';
import type { InboundStore } from './store.js';
import type { Threads } from './threads.js';

export interface ProcessorDeps {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly log: Logger;
  readonly spool: Spool;
  readonly store: InboundStore;
  readonly threads: Threads;
  readonly events: EventService;
  /** Parses and authenticates routed mail (a worker pool). */
  readonly analyzer: Analyzer;
  readonly feedback: FeedbackHandler;
  /** Told when attachments were stored, so the scanner starts at once. */
  readonly onAttachments: () => void;
  readonly concurrency?: number;
}

export interface Processor {
  /** Queues a spooled transaction; `message` spares reading back a file just written. */
  enqueue(id: string, message?: SpooledMessage): void;
  /** Queues whatever a previous run left in the spool. */
  recover(): Promise<number>;
  /** Resolves when nothing is queued or running (tests, benchmarks). */
  idle(): Promise<void>;
  /** Stops taking work and waits for what is running. */
  stop(): Promise<void>;
}

interface Prepared {
  readonly id: string;
  readonly spooled: SpooledMessage;
  readonly effects: Awaited<ReturnType<ReturnType<typeof createPreparer>>>;
}

const MAX_FAILURES = 10;
/** Bytes of fresh messages kept in memory for the processor; beyond it they are read back from the spool. */
const MAX_IN_MEMORY_BYTES = 64 * 1024 * 1024;
/** A processed message waits this long for others to share its commit. */
const COMMIT_LINGER_MS = 100;
/** Messages in the pipeline at once. Above the group commit's batch of 64, so that under load a
 * batch fills and commits at once instead of every batch waiting out the linger (which capped
 * the processed rate at concurrency / linger). */
const CONCURRENCY = 128;
const RETRY_BASE_MS = 1_000;
const RETRY_CAP_MS = 10 * 60_000;

export function createProcessor(deps: ProcessorDeps): Processor {
  const { log } = deps;
  const concurrency = deps.concurrency ?? CONCURRENCY;
  const queue: string[] = [];
  const queued = new Set<string>();
  // Fresh messages as the listener wrote them, while few enough are waiting; others are read back.
  const inMemory = new Map<string, SpooledMessage>();
  let inMemoryBytes = 0;
  const failures = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let running = 0;
  let stopped = false;
  let idleWaiters: Array<() => void> = [];

  const settle = () => {
    if (running > 0 || queue.length > 0 || timers.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const pump = () => {
    while (!stopped && running < concurrency && queue.length > 0) {
      const id = queue.shift() as string;
      running += 1;
      processOne(id)
        .then(
          () => failures.delete(id),
          (error: unknown) => retryLater(id, error),
        )
        .finally(() => {
          queued.delete(id);
          running -= 1;
          pump();
          settle();
        });
    }
  };

  const enqueue = (id: string, message?: SpooledMessage) => {
    if (stopped || queued.has(id)) return;
    if (message && inMemoryBytes + message.raw.length <= MAX_IN_MEMORY_BYTES) {
      inMemory.set(id, message);
      inMemoryBytes += message.raw.length;
    }
    queued.add(id);
    queue.push(id);
    pump();
  };

  function retryLater(id: string, error: unknown): void {
    const count = (failures.get(id) ?? 0) + 1;
    failures.set(id, count);
    if (count >= MAX_FAILURES) {
      log.error(
        { err: error, receipt: id, spool: deps.spool.dir },
        'inbound message keeps failing; left in the spool',
      );
      return;
    }
    const delay = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (count - 1));
    log.warn(
      { err: error, receipt: id, retry_in_ms: delay },
      'inbound message processing failed; will retry',
    );
    const timer = setTimeout(() => {
      timers.delete(timer);
      queued.delete(id);
      enqueue(id);
      settle();
    }, delay);
    timer.unref();
    timers.add(timer);
    queued.add(id);
  }

  /** One spooled transaction's writes: received messages, feedback effects, and its receipt. */
  async function write(trx: Db, { id, spooled, effects }: Prepared): Promise<number> {
    let attachments = 0;
    const outcome: Record<string, unknown> = {};
    for (const delivery of effects.routed) {
      const stored = await storeReceived(trx, deps, {
        envelope: spooled.envelope,
        size: spooled.raw.length,
        delivery,
        mail: effects.mail as NonNullable<typeof effects.mail>,
        auth: effects.auth as NonNullable<typeof effects.auth>,
      });
      attachments += stored.attachments;
      outcome[delivery.projectId] = stored.id;
    }
    const feedback = await deps.feedback.apply(trx, effects.feedback);
    await deps.store.insertReceipt(trx, {
      id,
      kind: effects.routed.length > 0 ? 'routed' : feedback.kind,
      mail_from: spooled.envelope.mailFrom,
      rcpt_to: JSON.stringify(spooled.envelope.recipients.map((r) => r.address)),
      remote_ip: spooled.envelope.remoteIp,
      size_bytes: spooled.raw.length,
      outcome: JSON.stringify({ received: outcome, ...feedback.summary }),
      received_at: spooled.envelope.receivedAt,
      processed_at: Date.now(),
    });
    return attachments;
  }

  // Batches commit without waiting for the disk; a spool file goes only once its commit has
  // passed a WAL barrier (an fsync off the event loop), so a power cut loses nothing.
  const commit = createGroupCommit(deps, write, {
    lingerMs: COMMIT_LINGER_MS,
    afterCommit: () => deps.events.notify(),
    durability: 'relaxed',
  });
  const durable = walBarrier(deps.sqlite);

  async function processOne(id: string): Promise<void> {
    let spooled = inMemory.get(id);
    if (spooled) {
      inMemory.delete(id);
      inMemoryBytes -= spooled.raw.length;
    }
    // A file from an earlier run (or an attempt whose barrier failed) may have been committed
    // already; its commit is made durable before the file goes.
    if (!spooled && (await deps.store.receiptExists(id))) {
      await durable();
      await deps.spool.remove(id);
      return;
    }
    spooled ??= await deps.spool.read(id);
    const effects = await prepare(spooled);
    const attachments = await commit({ id, spooled, effects });
    if (attachments > 0) deps.onAttachments();
    await durable();
    await deps.spool.remove(id);
  }

  const prepare = createPreparer(deps);

  return {
    enqueue,
    async recover() {
      const ids = await deps.spool.pending();
      for (const id of ids) enqueue(id);
      if (ids.length > 0) log.info({ count: ids.length }, 'processing inbound messages left in the spool');
      return ids.length;
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settle();
      });
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      queue.length = 0;
      while (running > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      settle();
    },
  };
}

/** Everything that can be worked out before the transaction: parsing, authentication, report reading. */
function createPreparer(deps: Pick<ProcessorDeps, 'analyzer' | 'feedback'>) {
  return async ({ envelope, raw }: SpooledMessage) => {
    const routed = routedDeliveries(envelope.recipients);
    const facts = { ip: envelope.remoteIp, helo: envelope.helo, mailFrom: envelope.mailFrom };
    const reports = envelope.recipients.some((r) => r.kind === 'bounce' || r.kind === 'complaint');
    // Reports are read on the analyzer's threads too: never a whole message on the event loop.
    const analyzed =
      routed.length > 0 || reports
        ? await deps.analyzer.analyze(raw, facts, { mail: routed.length > 0, reports })
        : undefined;
    const feedback = await deps.feedback.read({
      recipients: envelope.recipients,
      mailFrom: envelope.mailFrom,
      reports: analyzed?.reports ?? null,
      auth: analyzed?.auth ?? null,
      at: envelope.receivedAt,
    });
    return { routed, mail: analyzed?.mail ?? undefined, auth: analyzed?.auth, feedback };
  };
}

/** Routed recipients grouped by project: one stored message per project. */
function routedDeliveries(recipients: readonly InboundRecipient[]): RoutedDelivery[] {
  const byProject = new Map<string, { routeId: string; rcptTo: string[] }>();
  for (const recipient of recipients) {
    if (recipient.kind !== 'route') continue;
    const entry = byProject.get(recipient.projectId);
    if (entry) entry.rcptTo.push(recipient.address);
    else byProject.set(recipient.projectId, { routeId: recipient.routeId, rcptTo: [recipient.address] });
  }
  return [...byProject].map(([projectId, entry]) => ({ projectId, ...entry }));
}
