/**
 * The reputation center: its projection kept up to date (one run at a time; a report first lets
 * it catch up for up to 2 s, so a report reflects what was just committed), its figures per
 * project, and retention of its hours (31 days).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { projectionRuns } from '../../events/projection-runs.js';
import type { ReputationProjector } from './projector.js';
import { type CenterFigures, centerFigures, firstHours } from './report.js';
import type { Thresholds } from './states.js';
import type { ReputationStore } from './store.js';

const BATCH = 500;
const REPORT_WAIT_MS = 2000;
/** How long a catch-up waits for events held back by another transaction. */
const HELD_BACK_WAIT_MS = 5000;
const HOUR = 3_600_000;
const KEEP_HOURS = 31 * 24;

export function createReputationCenter(deps: {
  store: ReputationStore;
  projector: ReputationProjector;
  thresholds: Thresholds;
  /** Whether committed events lie beyond the projection's cursor (PostgreSQL only). */
  waiting?: () => Promise<boolean>;
  /** How long a report waits for the projection (longer on PostgreSQL: more round trips). */
  reportWaitMs?: number;
}) {
  async function drain(waitHeldBack: boolean): Promise<void> {
    const waitUntil = Date.now() + HELD_BACK_WAIT_MS;
    for (;;) {
      const read = await deps.projector.runBatch(BATCH);
      if (read < BATCH) {
        // PostgreSQL: events committed but held back behind a running transaction are waited for.
        if (!waitHeldBack || deps.waiting === undefined || Date.now() > waitUntil || !(await deps.waiting()))
          return;
        await sleep(20);
        continue;
      }
      await sleep(0);
    }
  }

  const runs = projectionRuns(drain);
  const { catchUp } = runs;

  return {
    catchUp,
    /** The background run (engine.ts): what is readable now, without waiting for held-back events. */
    follow: runs.follow,
    /** Resolves when no projection run is in progress (a stop waits for the one running). */
    settled: runs.settled,
    async figures(projectId: string, now = Date.now()): Promise<CenterFigures> {
      const wait = new AbortController();
      await Promise.race([
        catchUp(),
        sleep(deps.reportWaitMs ?? REPORT_WAIT_MS, undefined, { signal: wait.signal }).catch(() => undefined),
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
