/**
 * The scheduled-send releaser: every half second it moves scheduled messages whose `send_at` has
 * come to the queue (message `queued`, jobs `queued`, event `email.sent`), each in its own
 * transaction, so a send is released within a second of its time. A cancel that commits first
 * wins: release only touches rows still `scheduled`. Hourly it forgets idempotency keys older
 * than 24 hours. It never delivers: the delivery engine claims the queued jobs.
 */
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import type { Logger } from '../platform/log.js';
import { type EmailStore, IDEMPOTENCY_TTL_MS } from './store.js';

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
  log: Logger,
): SchedulerEngine {
  let running: Promise<number> | undefined;
  let stopped = false;
  let lastPurge = 0;

  async function releaseDue(now: number): Promise<number> {
    let released = 0;
    for (;;) {
      const due = await store.due(db, now, BATCH);
      for (const message of due) {
        const done = await db.transaction().execute(async (trx) => {
          if (!(await store.release(trx, message.id, now))) return false;
          await events.append(trx, {
            projectId: message.project_id,
            type: 'email.sent',
            messageId: message.id,
            at: now,
            data: {
              email_id: message.id,
              from: message.from_header,
              ...(await store.recipientLists(trx, message.id)),
              subject: message.subject,
              tags: JSON.parse(message.tags) as Record<string, string>,
              created_at: new Date(now).toISOString(),
              scheduled_at: new Date(message.send_at ?? now).toISOString(),
            },
          });
          return true;
        });
        if (done) released++;
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
