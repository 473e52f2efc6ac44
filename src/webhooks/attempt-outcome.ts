/**
 * What one attempt's response does to the rows, in one transaction: the attempt records what was
 * sent where and what came back; a success ends the endpoint's failing streak; a failure continues
 * it (failing-streak.ts), disables the endpoint at a 410 or once it has failed continuously for
 * `disable_after`, and queues the next retry per retry-schedule.ts (none after a 410). It never
 * sends and never logs: the dispatcher does both.
 */
import type { Db } from '../platform/db/database.js';
import { afterFailure } from './failing-streak.js';
import { nextRetryDelay, parseRetryAfter } from './retry-schedule.js';
import type { WebhookResult } from './sender.js';
import { type ClaimedAttempt, type EndpointRow, pendingAttempt, type WebhookStore } from './store.js';

export interface OutcomePolicy {
  /** `webhooks.retry_schedule`, in ms. */
  readonly scheduleMs: readonly number[];
  /** `webhooks.disable_after`, in ms. */
  readonly disableAfterMs: number;
  /** The longest gap between failures that still continues a streak. */
  readonly streakGapMs: number;
}

/** Why the outcome disabled the endpoint, if it did. */
export type DisabledReason = 'gone' | 'failing';

export async function recordOutcome(
  deps: { readonly db: Db; readonly store: WebhookStore; readonly policy: OutcomePolicy },
  attempt: ClaimedAttempt,
  endpoint: EndpointRow,
  result: WebhookResult,
): Promise<DisabledReason | undefined> {
  const { db, store, policy } = deps;
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const finishedAt = result.requestedAt + result.durationMs;
  let disabled: DisabledReason | undefined;
  await db.transaction().execute(async (trx) => {
    const recorded = await store.completeAttempt(trx, attempt, {
      state: ok ? 'succeeded' : 'failed',
      url: endpoint.url,
      requested_at: result.requestedAt,
      duration_ms: result.durationMs,
      response_status: result.status,
      response_headers: JSON.stringify(result.headers),
      response_body: result.body,
      error: result.error ?? (ok ? null : `HTTP ${result.status}`),
    });
    // Not recorded: the endpoint was deleted meanwhile, or this node's lease ran out and another
    // node claimed the attempt (PostgreSQL); that node's outcome is the one that counts.
    if (!recorded) return;
    // The endpoint's row is locked before it is read. On PostgreSQL (read committed) a URL change
    // committing meanwhile is then waited for and seen; read without the lock, this transaction
    // wrote back the streak it had read before the change, undoing the change's reset. SQLite's
    // transactions write one at a time already; there the statement changes nothing.
    await trx
      .updateTable('webhook_endpoints')
      .set((eb) => ({ failing_since: eb.ref('failing_since') }))
      .where('id', '=', endpoint.id)
      .execute();
    const current = await trx
      .selectFrom('webhook_endpoints')
      .select(['status', 'url', 'failing_since', 'last_failed_at'])
      .where('id', '=', endpoint.id)
      .executeTakeFirst();
    if (!current) return;
    // An attempt sent to a URL the endpoint no longer has (changed while it was in flight) says
    // nothing about the new URL: it neither continues, ends nor starts the new URL's streak, and a
    // 410 from the old address does not disable the endpoint. A failure is still retried, at the
    // new URL.
    const sameUrl = current.url === endpoint.url;
    if (ok) {
      if (!sameUrl) return;
      if (current.failing_since !== null) {
        await store.updateEndpoint(endpoint.id, { failing_since: null }, trx);
      }
      return;
    }
    if (!sameUrl) {
      await queueRetry(trx, store, policy, attempt, result, finishedAt);
      return;
    }
    const gone = result.status === 410;
    const streak = afterFailure(current, result.requestedAt, finishedAt, policy.streakGapMs);
    // Measured between the starts of the first and the latest failed attempt, so one slow
    // attempt cannot count as a failing streak by itself.
    if (
      current.status === 'enabled' &&
      (gone || result.requestedAt - streak.failing_since >= policy.disableAfterMs)
    ) {
      disabled = gone ? 'gone' : 'failing';
    }
    await store.updateEndpoint(
      endpoint.id,
      disabled
        ? { ...streak, status: 'disabled', disabled_reason: disabled, updated_at: finishedAt }
        : streak,
      trx,
    );
    if (gone) return;
    await queueRetry(trx, store, policy, attempt, result, finishedAt);
  });
  return disabled;
}

/** Queues the attempt's next retry per the schedule (and the response's Retry-After), if any is left. */
async function queueRetry(
  trx: Db,
  store: WebhookStore,
  policy: OutcomePolicy,
  attempt: ClaimedAttempt,
  result: WebhookResult,
  finishedAt: number,
): Promise<void> {
  const retryAfter = parseRetryAfter(result.headers['retry-after'], finishedAt);
  const delay = nextRetryDelay(attempt.attempt, policy.scheduleMs, retryAfter);
  if (delay === undefined) return;
  await store.insertAttempt(
    pendingAttempt(
      {
        message_id: attempt.message_id,
        endpoint_id: attempt.endpoint_id,
        attempt: attempt.attempt + 1,
        trigger: 'retry',
        replay_of: attempt.replay_of,
        previous_attempt_id: attempt.id,
      },
      finishedAt + delay,
      finishedAt,
    ),
    trx,
  );
}
