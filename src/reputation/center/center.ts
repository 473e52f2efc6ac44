/**
 * The reputation center: its projection kept up to date (one run at a time; a report first lets
 * it catch up for up to 2 s, so a report reflects what was just committed), its figures per
 * project, and retention of its hours (31 days).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReputationProjector } from './projector.js';
import { type CenterFigures, centerFigures, firstHours } from './report.js';
import type { Thresholds } from './states.js';
import type { ReputationStore } from './store.js';

const BATCH = 500;
const REPORT_WAIT_MS = 2000;
const HOUR = 3_600_000;
const KEEP_HOURS = 31 * 24;

export function createReputationCenter(deps: {
  store: ReputationStore;
  projector: ReputationProjector;
  thresholds: Thresholds;
}) {
  let running: Promise<void> | undefined;

  async function drain(): Promise<void> {
    for (;;) {
      const read = await deps.projector.runBatch(BATCH);
      if (read < BATCH) return;
      await sleep(0);
    }
  }

  /** Projects every committed event; concurrent callers share one run. */
  function catchUp(): Promise<void> {
    if (!running) {
      const run = drain().finally(() => {
        if (running === run) running = undefined;
      });
      running = run;
    }
    return running;
  }

  return {
    catchUp,
    /** Resolves when no projection run is in progress (a stop waits for the one running). */
    settled(): Promise<void> {
      return running ?? Promise.resolve();
    },
    async figures(projectId: string, now = Date.now()): Promise<CenterFigures> {
      const wait = new AbortController();
      await Promise.race([
        catchUp(),
        sleep(REPORT_WAIT_MS, undefined, { signal: wait.signal }).catch(() => undefined),
      ]);
      wait.abort();
      const hour = Math.floor(now / HOUR);
      const rows = await deps.store.window(projectId, firstHours(hour).at(-1) ?? hour);
      return centerFigures(rows, deps.thresholds, now);
    },
    /** Drops hours older than the longest window and a day. */
    purge(now = Date.now()): Promise<number> {
      return deps.store.purgeBefore(Math.floor(now / HOUR) - KEEP_HOURS);
    },
  };
}

export type ReputationCenter = ReturnType<typeof createReputationCenter>;
