/** Builds the message history and its indexer; the composition root calls this once. */
import type { Kernel } from '../../kernel.js';
import { historyDialect } from './dialect.js';
import { createHistoryIndexer } from './indexer.js';
import { createHistoryService } from './service.js';
import { createHistoryStore } from './store.js';

export function buildHistory(kernel: Kernel) {
  const dialect = historyDialect(kernel.config.storage.engine);
  const indexer = createHistoryIndexer(kernel.db, dialect);
  return { ...createHistoryService(createHistoryStore(kernel.db, dialect), indexer), indexer };
}

export type History = ReturnType<typeof buildHistory>;
