/**
 * The background run of the reputation center: the projection follows the event log (woken by
 * appends, at most every 250 ms, and every 5 s regardless), and its old hours are dropped hourly.
 * A failed run is logged and retried on the next wake; nothing is lost (the cursor did not move).
 */
import type { Logger } from '../../platform/log.js';
import type { ReputationCenter } from './center.js';

const DEBOUNCE_MS = 250;
const POLL_MS = 5000;
const PURGE_MS = 3_600_000;

export function startReputationProjection(
  center: ReputationCenter,
  onAppended: (listener: () => void) => () => void,
  log: Logger,
) {
  let stopped = false;
  let pending: NodeJS.Timeout | undefined;
  const run = () => {
    pending = undefined;
    if (stopped) return;
    center.follow().catch((error: unknown) => log.error({ err: error }, 'reputation projection failed'));
  };
  const wake = () => {
    if (!stopped && pending === undefined) pending = setTimeout(run, DEBOUNCE_MS);
  };
  const unsubscribe = onAppended(wake);
  const poll = setInterval(run, POLL_MS);
  const purge = setInterval(() => {
    center.purge().catch((error: unknown) => log.error({ err: error }, 'reputation retention failed'));
  }, PURGE_MS);
  poll.unref();
  purge.unref();
  run();
  return {
    name: 'reputation-projection',
    async stop(): Promise<void> {
      stopped = true;
      unsubscribe();
      clearInterval(poll);
      clearInterval(purge);
      if (pending) clearTimeout(pending);
      // A run in progress finishes its transaction (or rolls back) before the store closes.
      await center.settled().catch(() => undefined);
    },
  };
}
