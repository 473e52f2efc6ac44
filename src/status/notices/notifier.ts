/**
 * The notifier engine of `posthorn serve`. It wakes when an update is written (here or by the
 * command line, seen by the status engine), when a webhook subscription needs its challenge, and
 * when a retry falls due, then:
 *
 * 1. fans each new update out: one notice per subscriber verified by the update's time, queued
 *    in the same transaction that marks the update notified (a pending or removed subscriber is
 *    never queued; a crash in between queues nothing twice);
 * 2. sends due challenges; an echo verifies the subscription, a failure is retried on
 *    `status.retry_schedule`, after which it stays pending (subscribing again restarts it);
 * 3. sends due notices; a failure is retried on the same schedule (never earlier than a
 *    `Retry-After`), a 410 removes the subscription, and a notice whose subscriber was removed
 *    meanwhile is dropped.
 *
 * Work is leased in the store, so a notice is sent at least once across restarts, and a webhook
 * receiver can tell repeats apart by `webhook-id` (the notice's ID).
 */
import type { Db } from '../../platform/db/database.js';
import type { Logger } from '../../platform/log.js';
import { passRunner } from '../../platform/pass-runner.js';
import { nextRetryDelay, parseRetryAfter } from '../../webhooks/retry-schedule.js';
import type { IncidentStore } from '../incidents/store.js';
import type { StatusMailer } from '../subscriptions/mail-port.js';
import type { SubscriptionService } from '../subscriptions/service.js';
import { createNoticeStore, type NotificationRow } from './store.js';
import { type Deliver, sendChallenge, sendNotice } from './senders.js';

const BATCH = 16;
const POLL_MS = 2000;
const LEASE_MARGIN_MS = 60_000;

export interface NotifierDeps {
  readonly db: Db;
  readonly incidents: IncidentStore;
  readonly subscriptions: SubscriptionService;
  readonly mailer: StatusMailer;
  readonly deliver: Deliver;
  readonly masterKey: Buffer;
  readonly title: string;
  readonly pageUrl: string;
  readonly timeoutMs: number;
  readonly retryScheduleMs: readonly number[];
  readonly log: Logger;
}

export function startNotifier(deps: NotifierDeps) {
  const { db, log } = deps;
  const notices = createNoticeStore(db);
  const subs = deps.subscriptions.store;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const runner = passRunner(pump, (error: unknown) =>
    log.error({ err: error }, 'status notifier pass failed'),
  );
  const { wake } = runner;

  async function fanOut(): Promise<void> {
    for (;;) {
      const updates = await deps.incidents.unnotified(100);
      for (const update of updates) {
        const now = Date.now();
        await db.transaction().execute(async (trx) => {
          const ids = await subs.verifiedBy(trx, update.created_at);
          await notices.queue(trx, update.id, ids, now);
          await deps.incidents.markNotified(trx, update.seq, now);
        });
      }
      if (updates.length < 100 || runner.stopped) return;
    }
  }

  const retryAt = (attempt: number, retryAfter: string | undefined, now: number) => {
    const delay = nextRetryDelay(attempt, deps.retryScheduleMs, parseRetryAfter(retryAfter, now) ?? null);
    return delay === undefined ? undefined : now + delay;
  };

  async function challenges(): Promise<void> {
    const now = Date.now();
    const claimed = await subs.claimChallenges(now, BATCH, now + deps.timeoutMs + LEASE_MARGIN_MS);
    await Promise.all(
      claimed.map(async (row) => {
        const result = await sendChallenge(row, {
          masterKey: deps.masterKey,
          deliver: deps.deliver,
          signal: abort.signal,
        });
        if (abort.signal.aborted) {
          await subs.update(row.id, { challenge_locked_until: null });
          return;
        }
        const at = Date.now();
        const attempts = row.challenge_attempts + 1;
        const current = await subs.byId(row.id);
        if (current?.state !== 'pending') return;
        if (result.ok) {
          await subs.update(row.id, {
            state: 'verified',
            verified_at: at,
            challenge_due_at: null,
            challenge_locked_until: null,
            challenge_attempts: attempts,
            last_error: null,
            updated_at: at,
          });
          log.info({ subscription_id: row.id }, `status subscription ${row.id} verified by its challenge`);
          return;
        }
        const next = retryAt(attempts, result.retryAfter, at);
        await subs.update(row.id, {
          challenge_due_at: next ?? null,
          challenge_locked_until: null,
          challenge_attempts: attempts,
          last_error: result.error,
          updated_at: at,
        });
      }),
    );
  }

  async function deliver(row: NotificationRow): Promise<void> {
    const subscription = await subs.byId(row.subscription_id);
    if (subscription?.state !== 'verified') {
      await notices.finish(row.id, { state: 'dropped', last_error: 'the subscription was removed' });
      return;
    }
    const update = await deps.incidents.updateById(row.update_id);
    const found = update && (await deps.incidents.findWithUpdates(update.incident_id));
    if (!update || !found) {
      await notices.finish(row.id, { state: 'dropped', last_error: 'the incident no longer exists' });
      return;
    }
    const first = found.updates[found.updates.length - 1]?.id === update.id;
    const result = await sendNotice(
      {
        notificationId: row.id,
        subscription,
        incident: found.incident,
        update,
        first,
        pageUrl: deps.pageUrl,
        unsubscribeUrl: deps.subscriptions.unsubscribeUrl(subscription),
      },
      {
        title: deps.title,
        masterKey: deps.masterKey,
        deliver: deps.deliver,
        mailer: deps.mailer,
        signal: abort.signal,
      },
    );
    if (abort.signal.aborted) {
      await notices.release([row.id]);
      return;
    }
    const now = Date.now();
    const attempts = row.attempts + 1;
    if (result.ok) {
      await notices.finish(row.id, {
        state: 'sent',
        attempts,
        sent_at: now,
        response_status: result.status,
        message_id: result.messageId ?? null,
        last_error: null,
      });
      return;
    }
    if (result.gone) {
      await notices.finish(row.id, {
        state: 'failed',
        attempts,
        response_status: 410,
        last_error: result.error,
      });
      await subs.update(subscription.id, {
        state: 'removed',
        removed_at: now,
        updated_at: now,
        unsubscribe_token_hash: null,
      });
      log.warn(
        { subscription_id: subscription.id },
        `status subscription ${subscription.id} removed: its endpoint answered 410`,
      );
      return;
    }
    const next = retryAt(attempts, result.retryAfter, now);
    await notices.finish(row.id, {
      ...(next === undefined ? { state: 'failed' as const } : { due_at: next }),
      attempts,
      response_status: result.status,
      last_error: result.error,
    });
  }

  async function pump(): Promise<void> {
    await fanOut();
    await challenges();
    for (;;) {
      if (runner.stopped) return;
      const now = Date.now();
      const claimed = await notices.claim(now, BATCH, now + deps.timeoutMs + LEASE_MARGIN_MS);
      await Promise.all(
        claimed.map((row) =>
          deliver(row).catch((error: unknown) =>
            log.error({ err: error, notification_id: row.id }, 'status notice failed to run'),
          ),
        ),
      );
      if (claimed.length < BATCH) break;
    }
    await schedule();
  }

  async function schedule(): Promise<void> {
    if (runner.stopped) return;
    clearTimeout(timer);
    const next = Math.min(
      (await notices.nextDueAt()) ?? Number.POSITIVE_INFINITY,
      (await subs.nextChallengeAt()) ?? Number.POSITIVE_INFINITY,
    );
    const now = Date.now();
    const delay = Number.isFinite(next) && next > now ? Math.min(next - now, POLL_MS) : POLL_MS;
    timer = setTimeout(wake, delay);
    timer.unref();
  }

  const off = deps.subscriptions.onChallengeDue(wake);
  wake();

  return {
    name: 'status-notifier',
    wake,
    /** Resolves once the current pass (if any) has finished; tests use it. */
    idle: async () => {
      while (runner.running) await runner.running;
    },
    async stop(): Promise<void> {
      const passEnded = runner.stop();
      clearTimeout(timer);
      off();
      abort.abort();
      await passEnded;
    },
  };
}

export type Notifier = ReturnType<typeof startNotifier>;
