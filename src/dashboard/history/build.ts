/** Builds the message history and its indexer; the composition root calls this once. */
import type { Kernel } from '../../kernel.js';
import { createHistoryIndexer } from './indexer.js';
import { createHistoryService } from './service.js';
import { createHistoryStore } from './store.js';

export function buildHistory(kernel: Kernel) {
  const indexer = createHistoryIndexer(kernel.db);
  return { ...createHistoryService(createHistoryStore(kernel.db), indexer), indexer };
}

export type History = ReturnType<typeof buildHistory>;
