/**
 * The history indexer's timer: a batch every second, and batch after batch while there is a
 * backlog, so a history query rarely has anything left to index.
 */
import type { Logger } from '../../platform/log.js';
import { BATCH, type HistoryIndexer } from './indexer.js';

const EVERY_MS = 1000;

export function startHistoryIndexer(indexer: HistoryIndexer, log: Logger) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const tick = () => {
    current = (async () => {
      try {
        while (!stopped && (await indexer.catchUp()) === BATCH) {
          // Lets requests and deliveries run between batches of a backlog.
          await new Promise((resolve) => setImmediate(resolve));
        }
      } catch (error) {
        log.error({ err: error }, 'message history indexing failed');
      }
      if (!stopped) timer = setTimeout(tick, EVERY_MS);
    })();
  };
  timer = setTimeout(tick, EVERY_MS);
  return {
    name: 'message-history-indexer',
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
