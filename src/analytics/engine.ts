/**
 * Keeps the analytics projection close behind the event log: a catch-up shortly after events are
 * committed (coalesced, so a burst of sends costs one pass) and a slow poll for anything committed
 * without a notification. Reports catch up on their own, so this only keeps them cheap; while
 * marketing mail is being delivered it waits, up to its `lag` allowance behind the log
 * (platform/bulk-activity.ts), and looks again every `recheckMs`.
 */
import type { EventService } from '../events/service.js';
import type { ViewLag } from '../platform/bulk-activity.js';
import type { Logger } from '../platform/log.js';
import type { AnalyticsService } from './service.js';

const COALESCE_MS = 200;
const POLL_MS = 5000;
const RECHECK_MS = 1000;

export function startAnalyticsProjection(
  analytics: Pick<AnalyticsService, 'catchUp' | 'follow'>,
  events: Pick<EventService, 'onAppended'>,
  log: Logger,
  timing: { readonly coalesceMs: number; readonly pollMs: number; readonly recheckMs?: number } = {
    coalesceMs: COALESCE_MS,
    pollMs: POLL_MS,
  },
  lag?: ViewLag,
) {
  let soon: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = () => {
    // The poll runs this too: a coalesced timer still pending would otherwise be orphaned, and
    // could fire after stop() (and after the store is closed).
    clearTimeout(soon);
    soon = undefined;
    if (stopped) return;
    if (lag?.waiting) {
      // Appends meanwhile find this timer set and add none.
      soon = setTimeout(run, timing.recheckMs ?? RECHECK_MS);
      return;
    }
    const startedAt = lag?.now() ?? 0;
    analytics
      .follow()
      .then(() => lag?.caughtUp(startedAt))
      .catch((error: unknown) => log.error({ err: error }, 'analytics projection failed'));
  };
  const off = events.onAppended(() => {
    soon ??= setTimeout(run, timing.coalesceMs);
  });
  const poll = setInterval(run, timing.pollMs);
  poll.unref();
  run();
  return {
    name: 'analytics-projection',
    async stop() {
      stopped = true;
      off();
      clearInterval(poll);
      clearTimeout(soon);
      await analytics.catchUp().catch(() => undefined);
    },
  };
}
