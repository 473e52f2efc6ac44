/**
 * The daily sync of every provider connection: node-cron runs it on `reputation.sync_cron`, never
 * two runs at once; a stop abandons the connections not reached yet and waits a second at most.
 */
import cron from 'node-cron';
import type { Logger } from '../../platform/log.js';
import type { ConnectionService } from './service.js';

export function startProviderSync(connections: ConnectionService, schedule: string, log: Logger) {
  const stopping = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  const task = cron.schedule(
    schedule,
    () => {
      if (stopping.signal.aborted) return;
      running = connections
        .syncAll(stopping.signal)
        .then((result) => log.info(result, 'provider connections synced'))
        .catch((error: unknown) => log.error({ err: error }, 'provider sync run failed'));
      return running;
    },
    { name: 'reputation-provider-sync', noOverlap: true },
  );
  return {
    name: 'reputation-provider-sync',
    async stop(): Promise<void> {
      stopping.abort();
      await task.destroy();
      // A request in flight is abandoned after a second (it may wait for a provider's timeout);
      // the connections not reached wait for the next run.
      await Promise.race([running, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    },
  };
}
