/**
 * Tracking's background work, one node at a time: hourly, hits past their project's
 * `retention_days` are deleted and every custom tracking domain is checked again in DNS. Not the
 * recorder's stop: every node records the hits it answers, so every node writes what it holds when
 * it stops (`recorderStop`, a per-node engine), leader of this work or not.
 */
import type { Logger } from '../platform/log.js';
import type { TrackingService } from './service.js';

const EVERY_MS = 3_600_000;
const FIRST_RUN_MS = 60_000;

export function startTracking(tracking: TrackingService, log: Logger) {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= (async () => {
      let removed = 0;
      for (;;) {
        const n = await tracking.purgeExpired();
        removed += n;
        if (n === 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (removed > 0) log.info({ removed }, 'tracking retention purge');
      await tracking.settings.recheckAll();
    })()
      .catch((error: unknown) => log.error({ err: error }, 'tracking upkeep failed'))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, FIRST_RUN_MS);
  const every = setInterval(run, EVERY_MS);
  first.unref();
  every.unref();
  return {
    name: 'tracking',
    /** Runs the upkeep now (tests). */
    runNow(): Promise<void> {
      run();
      return running ?? Promise.resolve();
    },
    async stop() {
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}

/** Every node: on stop, the recorder writes every hit it holds (recorder.ts). */
export function recorderStop(tracking: TrackingService) {
  return { name: 'tracking-recorder', stop: () => tracking.recorder.stop() };
}
