/**
 * Jobs written down for a lane that is no longer configured (a custom lane removed or renamed in
 * `delivery.lanes`): each lane claims only its own jobs and a job keeps its lane across retries, so
 * these would never be claimed, never tried and never expire. At start the engine takes the lane
 * off them and the router assigns them again by their MX, as if they were new.
 *
 * It finds the lanes in use with one index seek per distinct lane and rewrites their jobs in
 * bounded batches (each its own short write), so a queue of millions never holds the database for
 * long. It must never touch a job of a configured lane.
 */
import type { Traffic } from '../../platform/db/tables.js';
import type { Logger } from '../../platform/log.js';
import type { DeliveryStore } from '../queue/store.js';

/** Jobs given back to the router per write. */
const BATCH = 1000;

export interface RemovedLanesDeps {
  readonly store: Pick<DeliveryStore, 'queuedLanes' | 'unassignLane'>;
  readonly log: Logger;
  /** The lanes that claim jobs of a traffic class (the sandbox's included). */
  readonly configured: (traffic: Traffic) => readonly string[];
  /** Checked between batches: a stopping engine leaves the rest to the next start. */
  readonly stopping: () => boolean;
}

/**
 * Gives the queued jobs of lanes that are not configured back to the router; returns how many.
 * Never throws: a failure is logged and the jobs wait for the next start.
 *
 * @example
 * const moved = await rerouteRemovedLanes({ store, log, configured: (t) => ['default', 'sandbox'], stopping: () => false });
 */
export async function rerouteRemovedLanes(deps: RemovedLanesDeps): Promise<number> {
  let total = 0;
  try {
    for (const traffic of ['transactional', 'marketing'] as const) {
      const configured = new Set(deps.configured(traffic));
      for (const lane of await deps.store.queuedLanes(traffic)) {
        if (!configured.has(lane)) total += await unassign(deps, traffic, lane);
      }
    }
  } catch (error) {
    deps.log.error({ err: error }, 'giving the jobs of removed lanes back to the router failed');
  }
  return total;
}

async function unassign(deps: RemovedLanesDeps, traffic: Traffic, lane: string): Promise<number> {
  let moved = 0;
  let last = BATCH;
  while (last === BATCH && !deps.stopping()) {
    last = await deps.store.unassignLane(traffic, lane, BATCH, Date.now());
    moved += last;
  }
  if (moved > 0)
    deps.log.info(
      { traffic, lane, jobs: moved },
      'jobs of a lane no longer configured go back to the router',
    );
  return moved;
}
