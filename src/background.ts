/**
 * Background engines of `posthorn serve` (timers, the delivery engine, the dispatcher, the
 * scheduler). Each starts after HTTP is listening and is stopped on shutdown, or when a later one
 * fails to start.
 *
 * They stop all at once, not one after another: none needs another to be running while it stops
 * (they share only the store, which closes after all of them), and the waits of the slow ones (the
 * inbound listener's `server.shutdown_timeout`, the delivery engine's `drain_timeout`) must overlap
 * rather than add up, or a stop outlasts the unit's `TimeoutStopSec` and systemd kills the process
 * with jobs still leased.
 */
import { startAnalyticsProjection } from './analytics/engine.js';
import { startApprovalExpiry } from './approvals/engine.js';
import { startHistoryIndexer } from './dashboard/history/engine.js';
import { startDomainRecheck } from './domains/recheck.js';
import { startScheduler } from './emails/scheduler.js';
import { startRetention } from './events/retention.js';
import type { Kernel } from './kernel.js';
import { ViewLag } from './platform/bulk-activity.js';
import { parseDuration } from './platform/config/duration.js';
import { startReputationProjection } from './reputation/center/engine.js';
import { startProviderSync } from './reputation/connections/sync-engine.js';
import type { Services } from './services.js';
import { recorderStop, startTracking } from './tracking/engine.js';
import { startWebhookFanOutEngine, startWebhooks } from './webhooks/engine.js';

export interface Engine {
  readonly name: string;
  stop(): Promise<void> | void;
}

const LAST_USED_FLUSH_MS = 5000;

function lastUsedFlusher(kernel: Kernel, services: Services): Engine {
  const timer = setInterval(() => {
    services.keys
      .flushLastUsed()
      .catch((error: unknown) => kernel.log.error({ err: error }, 'last-used flush failed'));
    services.accounts.sessions
      .flushLastSeen()
      .catch((error: unknown) => kernel.log.error({ err: error }, 'session last-seen flush failed'));
    services.audit
      .flush()
      .catch((error: unknown) => kernel.log.error({ err: error }, 'audit count flush failed'));
  }, LAST_USED_FLUSH_MS);
  timer.unref();
  return { name: 'api-key-last-used', stop: () => clearInterval(timer) };
}

export async function startBackground(
  kernel: Kernel,
  services: Services,
): Promise<{ stop(): Promise<void> }> {
  const engines: Engine[] = [];
  const stop = async () => {
    // Each stop() is called before any is awaited: an engine stops taking work the moment it is asked.
    const stopped = await Promise.allSettled(engines.splice(0).map(async (engine) => engine.stop()));
    const failed = stopped.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  };
  // Engines whose storage has no PostgreSQL adapter yet do not start on PostgreSQL (said once at
  // boot); docs/decisions/storage.md lists them.
  const notOnPostgres: string[] = [];
  // Singleton engines: on PostgreSQL one node at a time runs each, the holder of its advisory lock,
  // and another takes it over when that node dies (platform/db/leadership.ts); on SQLite, at once.
  const leadership = kernel.store.leadership;
  leadership.observe({
    // Taking and giving up engines at start and stop is routine; losing them to a failure is not.
    onChange: ({ name, held, reason }) => {
      if (held) kernel.log.debug({ engine: name }, `this node now runs ${name}`);
      else if (reason === 'stopped' || reason === 'closing')
        kernel.log.debug({ engine: name }, `this node stopped ${name}`);
      else kernel.log.warn({ engine: name, reason }, `this node lost ${name}; another node takes it over`);
    },
    onError: (error) => kernel.log.warn({ err: error }, 'engine leadership: the lock connection failed'),
  });
  const single = (name: string, start: () => Engine, options: { postgres: boolean } = { postgres: true }) => {
    if (kernel.store.engine === 'postgresql' && !options.postgres) notOnPostgres.push(name);
    else engines.push(leadership.lead(name, start));
  };
  try {
    engines.push(lastUsedFlusher(kernel, services));
    // While marketing mail is delivered, the derived views wait (SQLite: there they share the one
    // store and event loop with delivery; docs/decisions/broadcasts.md).
    const viewLag = () =>
      new ViewLag(
        kernel.store.engine === 'sqlite' ? services.bulk : undefined,
        parseDuration(kernel.config.broadcasts.views_lag_max),
      );
    single('history-indexer', () =>
      startHistoryIndexer(services.history.indexer, kernel.log.child({ capability: 'dashboard' }), viewLag()),
    );
    single('scheduler', () =>
      startScheduler(
        kernel.db,
        services.emails.store,
        services.events,
        services.emails.checkRelease,
        kernel.log.child({ capability: 'emails' }),
      ),
    );
    single('oauth', () => services.oauth.start());
    single('approval-expiry', () =>
      startApprovalExpiry(services.approvals, kernel.log.child({ capability: 'approvals' })),
    );
    single('webhook-fan-out', () => startWebhookFanOutEngine(kernel, services.webhooks, services));
    // Every node sends webhooks: attempts are claimed with SKIP LOCKED and a lease token
    // (webhooks/store-queue.ts).
    engines.push(startWebhooks(kernel, services.webhooks));
    single('analytics-projection', () =>
      startAnalyticsProjection(
        services.analytics,
        services.events,
        kernel.log.child({ capability: 'analytics' }),
        undefined,
        viewLag(),
      ),
    );
    // Before delivery starts: a project with a dedicated IP never sends its first mail from a shared one.
    await services.reputation.sources.load();
    single('reputation-projection', () =>
      startReputationProjection(
        services.reputation.center,
        (listener) => services.events.onAppended(listener),
        kernel.log.child({ capability: 'reputation' }),
      ),
    );
    single('provider-sync', () =>
      startProviderSync(
        services.reputation.connections,
        kernel.config.reputation.sync_cron,
        kernel.log.child({ capability: 'reputation' }),
      ),
    );
    single('retention', () =>
      startRetention(
        kernel.config.retention.events_days,
        {
          events: (cutoff) => services.events.purgeBefore(cutoff),
          webhook_messages: (cutoff) => services.webhooks.store.purgeBefore(cutoff),
          analytics_recipients: (cutoff) => services.analytics.purgeBefore(cutoff),
          delivery_attempts: (cutoff) => services.delivery.purgeAttemptsBefore(cutoff),
        },
        kernel.log.child({ capability: 'retention' }),
      ),
    );
    single('message-retention', () =>
      startRetention(
        kernel.config.retention.messages_days,
        {
          message_bodies: (cutoff) => services.emails.store.purgeBodiesBefore(cutoff),
          message_raw: (cutoff) => services.delivery.purgeRawBefore(cutoff),
          broadcast_renderings: (cutoff) => services.broadcasts.purgePreparedBefore(cutoff),
          inbound_bodies: (cutoff) => services.inbound.store.purgeBodiesBefore(cutoff),
          inbound_attachments: (cutoff) => services.inbound.store.purgeAttachmentsBefore(cutoff),
        },
        kernel.log.child({ capability: 'retention' }),
        'message-retention',
      ),
    );
    // Always: accepted mail is signed ahead of delivery when there is time (delivery/compose/prerender.ts).
    engines.push(services.delivery.start({ deliver: kernel.config.delivery.enabled }));
    single('domain-recheck', () =>
      startDomainRecheck(services.domains, kernel.config.domains.recheck_cron, kernel.log),
    );
    single('tracking', () => startTracking(services.tracking, kernel.log.child({ capability: 'tracking' })));
    // Per node: each node answers hits and holds them briefly; its stop writes them, leader or not.
    engines.push(recorderStop(services.tracking));
    single('broadcasts', () => services.broadcasts.start());
    // Per node: each node listens for the MX traffic sent to it, into a spool of its own.
    if (kernel.config.smtp_in.enabled) engines.push(services.inbound.start());
    // Last: its first measurement sees the engines above running. Every node measures and serves
    // its own status; one node opens automatic incidents and notifies subscribers.
    const status = services.status.start();
    engines.push(status);
    // The first measurement is taken before the boot ends, so /status never lists no components
    // (awaited before the leader part joins: its notifier's sends are not the boot's to wait for).
    await status.idle();
    single('status', () => services.status.startLeader());
    if (notOnPostgres.length > 0)
      kernel.log.warn(
        { engines: notOnPostgres },
        `on PostgreSQL these engines do not run yet (their storage has no PostgreSQL adapter): ${notOnPostgres.join(', ')}`,
      );
  } catch (error) {
    // An engine that cannot start stops the boot: those already running stop too, so that `serve`
    // exits rather than stay up half-started (answering /health with no delivery engine, say).
    await stop();
    throw error;
  }
  return { stop };
}
