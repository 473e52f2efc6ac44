/**
 * A message that ends before any of it was tried (a held one rejected, a scheduled one that may
 * no longer be sent): the message and every recipient set to their final status at once, provided
 * the message is still where the caller found it. Shared by store-held.ts and store-schedule.ts.
 */
import type { Db } from '../platform/db/database.js';
import type { MessageStatus, RecipientStatus } from '../platform/db/tables.js';

/** Moves message `id` from `from` to `to` and all its recipients to `recipients`; false when it was no longer `from`. */
export async function endUntried(
  executor: Db,
  id: string,
  from: MessageStatus,
  to: MessageStatus,
  recipients: RecipientStatus,
  now: number,
): Promise<boolean> {
  const updated = await executor
    .updateTable('messages')
    .set({ status: to, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  if (updated.numUpdatedRows === 0n) return false;
  await executor
    .updateTable('message_recipients')
    .set({ status: recipients, updated_at: now })
    .where('message_id', '=', id)
    .execute();
  return true;
}
