/**
 * The status engine of `posthorn serve`: measures the components every `status.check_interval`,
 * keeps the served snapshot current, opens and resolves automatic incidents, starts and ends
 * maintenance windows on time, and runs the notifier. Changes the command line writes from its own
 * process are noticed within a second by the update sequence, a one-row indexed read.
 */
import type { Engine } from '../background.js';
import { parseDuration } from '../platform/config/duration.js';
import type { Kernel } from '../kernel.js';
import type { StatusDeps } from './build.js';
import { createAutoIncidents } from './components/auto-incidents.js';
import { createMeasurer } from './components/measure.js';
import type { IncidentService } from './incidents/service.js';
import { startNotifier } from './notices/notifier.js';
import type { SubscriptionService } from './subscriptions/service.js';
import type { Snapshot } from './views/snapshot.js';

const SEQ_POLL_MS = 1000;

export function startStatusEngine(
  kernel: Kernel,
  parts: { incidents: IncidentService; subscriptions: SubscriptionService; snapshot: Snapshot },
  deps: StatusDeps,
): Engine & { wake(): void; idle(): Promise<void> } {
  const { config } = kernel;
  const log = kernel.log.child({ capability: 'status' });
  const { incidents, snapshot } = parts;
  const measurer = createMeasurer({
    config,
    health: deps.health,
    delivery: deps.delivery,
    webhooks: deps.webhooks,
  });
  const auto = createAutoIncidents({
    policy: {
      enabled: config.status.auto_incidents,
      openAfterMs: parseDuration(config.status.auto_incident_after),
      resolveAfterMs: parseDuration(config.status.auto_resolve_after),
    },
    incidents,
    log,
  });
  const notifier = startNotifier({
    db: kernel.db,
    incidents: incidents.store,
    subscriptions: parts.subscriptions,
    mailer: deps.mailer,
    deliver: deps.webhooks.deliver,
    masterKey: kernel.masterKey,
    title: config.status.title,
    pageUrl: `${config.server.public_url.replace(/\/+$/, '')}/status`,
    timeoutMs: deps.webhooks.timeoutMs,
    retryScheduleMs: config.status.retry_schedule.map(parseDuration),
    log,
  });

  let knownSeq = -1;
  let stopped = false;
  let running: Promise<void> | undefined;

  async function refresh(): Promise<void> {
    const seq = await incidents.lastSeq();
    if (seq === knownSeq) return;
    knownSeq = seq;
    await snapshot.reload();
    notifier.wake();
  }

  async function check(): Promise<void> {
    const now = Date.now();
    await incidents.advanceMaintenance(now);
    await refresh();
    const measurements = await measurer.measure(now);
    snapshot.setMeasurements(measurements, now);
    await auto.follow(measurements, snapshot.open(), now);
    await refresh();
  }

  const run = (work: () => Promise<void>) => {
    if (stopped) return;
    const previous = running ?? Promise.resolve();
    const next: Promise<void> = previous
      .then(work)
      .catch((error: unknown) => log.error({ err: error }, 'status check failed'))
      .finally(() => {
        if (running === next) running = undefined;
      });
    running = next;
  };

  const off = incidents.onChange(() => run(refresh));
  run(check);
  const checkTimer = setInterval(() => run(check), parseDuration(config.status.check_interval));
  const seqTimer = setInterval(() => run(refresh), SEQ_POLL_MS);
  checkTimer.unref();
  seqTimer.unref();

  return {
    name: 'status',
    wake: () => run(check),
    async idle(): Promise<void> {
      while (running) await running;
      await notifier.idle();
    },
    async stop(): Promise<void> {
      stopped = true;
      off();
      clearInterval(checkTimer);
      clearInterval(seqTimer);
      await running;
      measurer.close();
      await notifier.stop();
    },
  };
}
