/**
 * The scheduled-send releaser: every half second it takes the scheduled messages whose `send_at`
 * has come, checks each again (release-check.ts: project suspended, sender no longer verified,
 * recipients suppressed since acceptance) and writes the outcome, each message in its own
 * transaction with its events, so a send is released within a second of its time:
 * - released: message `queued`, jobs `queued`, event `email.sent` listing who was released;
 *   recipients suppressed meanwhile become `suppressed` with an `email.suppressed` each, a job
 *   left with nobody is cancelled, and with nobody left at all the message is `suppressed`;
 * - refused (suspended project, unverified sender): message and recipients `failed`, jobs
 *   cancelled, an `email.failed` per recipient whose reason is the refusal a send would get now.
 * A cancel that commits first wins: only rows still `scheduled` are touched. Hourly it forgets
 * idempotency keys older than 24 hours. It never delivers: the delivery engine claims the jobs.
 */
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import type { Logger } from '../platform/log.js';
import type { ReleaseCheck, ReleaseVerdict } from './release-check.js';
import { failedEvent, type ReleasedMessage, sentEvent, suppressedEvent } from './release-events.js';
import { type EmailStore, IDEMPOTENCY_TTL_MS, type ScheduledRecipient } from './store.js';

export interface SchedulerEngine {
  readonly name: string;
  /** Releases what is due now; the timer calls it, tests may too. */
  tick(now?: number): Promise<number>;
  stop(): Promise<void>;
}

const TICK_MS = 500;
const PURGE_MS = 3_600_000;
const BATCH = 200;

export function startScheduler(
  db: Db,
  store: EmailStore,
  events: EventService,
  checkRelease: ReleaseCheck,
  log: Logger,
): SchedulerEngine {
  let running: Promise<number> | undefined;
  let stopped = false;
  let lastPurge = 0;

  /** Writes one verdict in one transaction; false when the message was cancelled meanwhile. */
  function settle(
    message: ReleasedMessage,
    recipients: readonly ScheduledRecipient[],
    verdict: ReleaseVerdict,
    now: number,
  ): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      if (verdict.kind === 'fail') {
        if (!(await store.failScheduled(trx, message.id, now))) return false;
        for (const recipient of recipients) {
          await events.append(trx, failedEvent(message, recipients, recipient, verdict.reason, now));
        }
        return true;
      }
      const held = verdict.suppressed;
      const status = await store.release(trx, message.id, now, [...held.keys()]);
      if (status === undefined) return false;
      for (const recipient of recipients) {
        const reason = held.get(recipient.id);
        if (reason !== undefined) {
          await events.append(trx, suppressedEvent(message, recipients, recipient, reason, now));
        }
      }
      if (status === 'queued') {
        const released = recipients.filter((r) => !held.has(r.id));
        await events.append(trx, sentEvent(message, released, now));
      }
      return true;
    });
  }

  async function releaseDue(now: number): Promise<number> {
    let released = 0;
    for (;;) {
      const due = await store.due(db, now, BATCH);
      for (const message of due) {
        // Read and checked outside the transaction: the checks ask other services, which use the
        // connection the transaction would hold. A scheduled message's recipients never change.
        const recipients = await store.recipientsOf(db, message.id);
        const verdict = await checkRelease(message, recipients);
        if (await settle(message, recipients, verdict, now)) released++;
      }
      if (due.length < BATCH) break;
    }
    if (released > 0) events.notify();
    if (now - lastPurge > PURGE_MS) {
      lastPurge = now;
      await store.purgeIdempotency(now - IDEMPOTENCY_TTL_MS);
    }
    return released;
  }

  const tick = (now = Date.now()): Promise<number> => {
    // One pass at a time: a slow pass is never overlapped by the next timer.
    running ??= releaseDue(now).finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    if (stopped) return;
    tick().catch((error: unknown) => log.error({ err: error }, 'releasing scheduled sends failed'));
  }, TICK_MS);
  timer.unref();

  return {
    name: 'email-scheduler',
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
