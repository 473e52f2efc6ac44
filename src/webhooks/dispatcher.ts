/**
 * The webhook dispatcher engine, on every node. It wakes when attempts are queued (the fan-out's
 * notification from whichever node runs it, fan-out-engine.ts; a replay or a re-enabled endpoint
 * here; a retry falling due), then leases due attempts endpoint by endpoint and sends them
 * (sender.ts), at most `per_endpoint_concurrency` per endpoint (counted on every node together)
 * and `concurrency` in all on this node, so one slow endpoint never holds up the others. Several
 * nodes claim from one queue without sending an attempt twice (store-queue.ts): an attempt is
 * leased with a token, and an outcome is recorded only under the lease it was sent under.
 *
 * Every attempt's outcome is recorded with what was sent where and what came back
 * (attempt-outcome.ts): after a failure the next attempt is queued per retry-schedule.ts; a 410
 * disables the endpoint at once, and an endpoint that has failed continuously, without a success,
 * for `disable_after` is disabled (logged here). Pending attempts live in the database, so retries
 * survive a restart; a stop aborts requests in flight and releases their leases, so they are sent
 * again (at least once) after the next start. A node that dies mid-request leaves its leases to run
 * out (`timeout` + `lease_margin`); then another node sends those attempts again, same webhook-id.
 */
import type { Config } from '../platform/config/schema.js';
import { parseDuration } from '../platform/config/duration.js';
import type { Db } from '../platform/db/database.js';
import type { Notifications } from '../platform/db/notifications.js';
import type { Logger } from '../platform/log.js';
import { passRunner } from '../platform/pass-runner.js';
import { VERSION } from '../version.js';
import { type OutcomePolicy, recordOutcome } from './attempt-outcome.js';
import { ATTEMPTS_QUEUED } from './fan-out-engine.js';
import type { WebhookSender } from './sender.js';
import type { WebhookService } from './service.js';
import { signatureHeader } from './signing.js';
import type { ClaimedAttempt, WebhookStore } from './store.js';

/** Look for due attempts at least this often (attempts queued on a node whose notification was lost). */
const POLL_MS = 2000;
const ENDPOINTS_PER_PASS = 100;

export interface DispatcherDeps {
  readonly db: Db;
  readonly store: WebhookStore;
  /** Where the fan-out says attempts are queued. */
  readonly notifications: Pick<Notifications, 'listen'>;
  readonly webhooks: WebhookService;
  readonly send: WebhookSender;
  readonly config: Config['webhooks'];
  readonly log: Logger;
}

export function startWebhookDispatcher(deps: DispatcherDeps) {
  const { db, store, config, log } = deps;
  const timeoutMs = parseDuration(config.timeout);
  // A lease outlives the request timeout by the margin, so only a dead process loses it.
  const leaseMs = timeoutMs + parseDuration(config.lease_margin);
  const scheduleMs = config.retry_schedule.map(parseDuration);
  const policy: OutcomePolicy = {
    scheduleMs,
    disableAfterMs: parseDuration(config.disable_after),
    // A failure continues the endpoint's streak only within the longest retry delay of the
    // previous one (plus a poll interval of timer slack): failing-streak.ts.
    streakGapMs: Math.max(...scheduleMs) + POLL_MS,
  };
  const perEndpoint = new Map<string, number>();
  const inFlight = new Map<string, { promise: Promise<void>; abort: AbortController }>();
  let timer: NodeJS.Timeout | undefined;
  const runner = passRunner(pump, (error: unknown) =>
    log.error({ err: error }, 'webhook dispatcher pass failed'),
  );
  const { wake } = runner;

  async function pump(): Promise<void> {
    const checkedAt = await dispatchDue();
    await scheduleTimer(checkedAt);
  }

  /** Starts what is due; returns the time of its last look (what was due then and not started waits for a busy endpoint). */
  async function dispatchDue(): Promise<number> {
    const saturated = new Set<string>();
    let now = Date.now();
    for (;;) {
      if (runner.stopped || inFlight.size >= config.concurrency) return now;
      now = Date.now();
      const candidates = (
        await store.endpointsWithDueAttempts(now, ENDPOINTS_PER_PASS + saturated.size)
      ).filter((id) => !saturated.has(id));
      if (candidates.length === 0) return now;
      for (const endpointId of candidates) {
        const free = Math.min(
          config.per_endpoint_concurrency - (perEndpoint.get(endpointId) ?? 0),
          config.concurrency - inFlight.size,
        );
        if (free <= 0) {
          saturated.add(endpointId);
          if (inFlight.size >= config.concurrency) return now;
          continue;
        }
        const claimed = await store.claim(
          endpointId,
          now,
          free,
          now + leaseMs,
          config.per_endpoint_concurrency,
        );
        if (runner.stopped) {
          // stop() ran while claiming and aborted only what was in flight then: hand these back
          // rather than start requests nobody will abort.
          await store.releaseLocks(claimed);
          return now;
        }
        for (const attempt of claimed) start(attempt);
        // Whatever is left due for this endpoint waits for one of its requests to finish (on
        // PostgreSQL, of any node's: a claim that found the endpoint busy elsewhere took nothing).
        saturated.add(endpointId);
      }
    }
  }

  async function scheduleTimer(checkedAt: number): Promise<void> {
    if (runner.stopped) return;
    clearTimeout(timer);
    const next = await store.nextWakeAt();
    // Attempts that were due at the last look and not started wait for a busy endpoint: a request
    // that ends picks them up. One due since that look (a timer may fire a millisecond before
    // Date.now() reaches its time) is looked for again at once, not after a whole poll: that
    // late retry restarted an endpoint's failing streak (failing-streak.ts).
    const delay =
      next !== undefined && next > checkedAt ? Math.min(Math.max(0, next - Date.now()), POLL_MS) : POLL_MS;
    timer = setTimeout(wake, delay);
    timer.unref();
  }

  function start(attempt: ClaimedAttempt): void {
    perEndpoint.set(attempt.endpoint_id, (perEndpoint.get(attempt.endpoint_id) ?? 0) + 1);
    const abort = new AbortController();
    const promise = deliver(attempt, abort.signal)
      .catch((error: unknown) =>
        log.error({ err: error, attempt_id: attempt.id }, 'webhook attempt failed to run'),
      )
      .finally(() => {
        inFlight.delete(attempt.id);
        const left = (perEndpoint.get(attempt.endpoint_id) ?? 1) - 1;
        if (left <= 0) perEndpoint.delete(attempt.endpoint_id);
        else perEndpoint.set(attempt.endpoint_id, left);
        wake();
      });
    inFlight.set(attempt.id, { promise, abort });
  }

  async function deliver(attempt: ClaimedAttempt, signal: AbortSignal): Promise<void> {
    const endpoint = await deps.webhooks.endpointById(attempt.endpoint_id);
    if (endpoint?.status !== 'enabled') {
      await store.releaseLocks([attempt]);
      return;
    }
    const now = Date.now();
    const timestamp = Math.floor(now / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': `Posthorn-Webhooks/${VERSION}`,
      'webhook-id': attempt.message_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(
        deps.webhooks.signingSecrets(endpoint, now),
        attempt.message_id,
        timestamp,
        attempt.body,
      ),
    };
    const result = await deps.send({
      url: endpoint.url,
      headers,
      body: attempt.body,
      timeoutMs,
      allowPrivate: config.allow_private_targets,
      signal,
    });
    if (signal.aborted) {
      // Stopping: the attempt stays pending and is sent again after the next start.
      await store.releaseLocks([attempt]);
      return;
    }
    const disabled = await recordOutcome({ db, store, policy }, attempt, endpoint, result);
    if (disabled) {
      log.warn(
        { endpoint_id: endpoint.id, reason: disabled },
        `webhook endpoint ${endpoint.id} disabled (${disabled})`,
      );
    }
  }

  const unsubscribe = [deps.notifications.listen(ATTEMPTS_QUEUED, wake), deps.webhooks.onQueued(wake)];
  wake();

  return {
    name: 'webhook-dispatcher',
    /** Runs one pass now (tests and the CLI use it to avoid waiting for the timer). */
    wake,
    async stop(): Promise<void> {
      const passEnded = runner.stop();
      clearTimeout(timer);
      for (const off of unsubscribe) off();
      for (const { abort } of inFlight.values()) abort.abort();
      await passEnded;
      await Promise.all([...inFlight.values()].map((entry) => entry.promise));
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof startWebhookDispatcher>;
