/**
 * Where each consumer of the event log (the webhook dispatcher, the analytics projection) has read
 * up to. A consumer advances its cursor in the SAME transaction as the work the events caused, so
 * a crash either keeps both or neither: nothing is skipped and nothing is done twice.
 */
import type { Db } from '../platform/db/database.js';

export function createCursorStore(db: Db) {
  return {
    async get(consumer: string, executor: Db = db): Promise<string> {
      const row = await executor
        .selectFrom('event_cursors')
        .select('last_event_id')
        .where('consumer', '=', consumer)
        .executeTakeFirst();
      return row?.last_event_id ?? '';
    },

    async set(consumer: string, lastEventId: string, executor: Db = db): Promise<void> {
      await executor
        .insertInto('event_cursors')
        .values({ consumer, last_event_id: lastEventId, updated_at: Date.now() })
        .onConflict((oc) =>
          oc.column('consumer').doUpdateSet({ last_event_id: lastEventId, updated_at: Date.now() }),
        )
        .execute();
    },
  };
}

export type CursorStore = ReturnType<typeof createCursorStore>;
