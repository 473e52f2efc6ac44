/**
 * Keeps the analytics projection close behind the event log: a catch-up shortly after events are
 * committed (coalesced, so a burst of sends costs one pass) and a slow poll for anything committed
 * without a notification. Reports catch up on their own, so this only keeps them cheap.
 */
import type { EventService } from '../events/service.js';
import type { Logger } from '../platform/log.js';
import type { AnalyticsService } from './service.js';

const COALESCE_MS = 200;
const POLL_MS = 5000;

export function startAnalyticsProjection(analytics: AnalyticsService, events: EventService, log: Logger) {
  let soon: NodeJS.Timeout | undefined;
  const run = () => {
    soon = undefined;
    analytics.catchUp().catch((error: unknown) => log.error({ err: error }, 'analytics projection failed'));
  };
  const off = events.onAppended(() => {
    soon ??= setTimeout(run, COALESCE_MS);
  });
  const poll = setInterval(run, POLL_MS);
  poll.unref();
  run();
  return {
    name: 'analytics-projection',
    async stop() {
      off();
      clearInterval(poll);
      clearTimeout(soon);
      await analytics.catchUp().catch(() => undefined);
    },
  };
}
