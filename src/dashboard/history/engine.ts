/**
 * The history indexer's timer: a batch every second, and batch after batch while there is a
 * backlog, so a history query rarely has anything left to index. While marketing mail is being
 * delivered it waits, up to its `lag` allowance behind the store (platform/bulk-activity.ts): a
 * history page catches the index up before it answers either way.
 */
import type { ViewLag } from '../../platform/bulk-activity.js';
import type { Logger } from '../../platform/log.js';
import { BATCH, type HistoryIndexer } from './indexer.js';

const EVERY_MS = 1000;

export function startHistoryIndexer(
  indexer: Pick<HistoryIndexer, 'catchUp'>,
  log: Logger,
  lag?: ViewLag,
  everyMs = EVERY_MS,
) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const tick = () => {
    current = (async () => {
      try {
        if (!lag?.waiting) {
          const startedAt = lag?.now() ?? 0;
          while (!stopped && (await indexer.catchUp()) === BATCH) {
            // Lets requests and deliveries run between batches of a backlog.
            await new Promise((resolve) => setImmediate(resolve));
          }
          if (!stopped) lag?.caughtUp(startedAt);
        }
      } catch (error) {
        log.error({ err: error }, 'message history indexing failed');
      }
      if (!stopped) timer = setTimeout(tick, everyMs);
    })();
  };
  timer = setTimeout(tick, everyMs);
  return {
    name: 'message-history-indexer',
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
