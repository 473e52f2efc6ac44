/**
 * The PostgreSQL adapter of the inbound hot store (the port is `store-hot.ts`): the same reads
 * and writes through Kysely, in the caller's transaction `trx`, made safe for several nodes that
 * receive mail at once into one database.
 *
 * - Thread assignment takes a transaction lock (`inbound-threads`) before its first lookup, so a
 *   node's lookups see every assignment another node committed before: a reply processed on one
 *   node while the message it answers commits on another joins its thread, exactly as with one
 *   writer. The lock is released by the commit.
 * - A thread's Message-IDs are claimed by their unique key (`on conflict do nothing`), never read
 *   first and then written: a key another transaction took answers with that transaction's thread.
 * - The scanner claims attachments (`for update skip locked`) by moving their `scan_after` past a
 *   lease, so two nodes scan different attachments; one whose node died is scanned when its lease
 *   runs out.
 * - PostgreSQL's text cannot hold a NUL character, which received mail and clamd's replies may
 *   carry: it is written as U+FFFD (the replacement character), or the message could never be
 *   stored and would end in the spool's `failed` directory.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import { lockInTransaction } from '../platform/db/transaction-lock.js';
import type { InboundHotStore } from './store-hot.js';

/** The transaction lock every thread assignment takes on PostgreSQL. */
const THREAD_LOCK = 'inbound-threads';

/** `row` with every NUL in its strings replaced by U+FFFD (PostgreSQL's text refuses NUL). */
export function textSafe<T extends object>(row: T): T {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(row)) {
    if (typeof value !== 'string' || !value.includes('\u0000')) continue;
    copy ??= { ...(row as Record<string, unknown>) };
    copy[key] = value.replaceAll('\u0000', '\uFFFD');
  }
  return (copy ?? row) as T;
}

const textSafeKey = (key: string) => key.replaceAll('\u0000', '\uFFFD');

export function createPgHotStore(db: Db): InboundHotStore {
  return {
    routeByAddress: (domain, local) =>
      db
        .selectFrom('inbound_routes')
        .selectAll()
        .where('domain', '=', textSafeKey(domain))
        .where('local_part', 'in', [textSafeKey(local), ''])
        // The exact local part sorts before the catch-all ('').
        .orderBy('local_part', 'desc')
        .limit(1)
        .executeTakeFirst(),
    async receiptKind(id) {
      const row = await db
        .selectFrom('inbound_receipts')
        .select('kind')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.kind;
    },
    async insertReceipt(trx, row) {
      await trx
        .insertInto('inbound_receipts')
        .values(textSafe({ outcome: '{}', ...row }))
        .execute();
    },
    async insertMessage(trx, row) {
      await trx.insertInto('inbound_messages').values(textSafe(row)).execute();
    },
    async insertAttachments(trx, rows) {
      if (rows.length === 0) return;
      await trx.insertInto('inbound_attachments').values(rows.map(textSafe)).execute();
    },
    async threadOf(trx, projectId, keys) {
      await lockInTransaction(trx, THREAD_LOCK);
      if (keys.length === 0) return undefined;
      const rows = await trx
        .selectFrom('thread_message_ids')
        .select(['message_id_header', 'thread_id'])
        .where('project_id', '=', projectId)
        .where('message_id_header', 'in', [...new Set(keys.map(textSafeKey))])
        .execute();
      const byKey = new Map(rows.map((row) => [row.message_id_header, row.thread_id]));
      for (const key of keys) {
        const threadId = byKey.get(textSafeKey(key));
        if (threadId !== undefined) return threadId;
      }
      return undefined;
    },
    async insertThread(trx, row) {
      await trx.insertInto('inbound_threads').values(textSafe(row)).execute();
    },
    async touchThread(trx, id, at) {
      await trx
        .updateTable('inbound_threads')
        .set({ last_message_at: sql<number>`greatest(last_message_at, ${at}::bigint)` })
        .where('id', '=', id)
        .execute();
    },
    async deleteThread(trx, id) {
      await trx.deleteFrom('inbound_threads').where('id', '=', id).execute();
    },
    async addThreadMessageId(trx, given) {
      const row = textSafe(given);
      const added = await trx
        .insertInto('thread_message_ids')
        .values(row)
        .onConflict((conflict) => conflict.columns(['project_id', 'message_id_header']).doNothing())
        .returning('thread_id')
        .executeTakeFirst();
      if (added) return added.thread_id;
      // Taken: at read committed this statement sees the transaction that took it, now committed.
      const holder = await trx
        .selectFrom('thread_message_ids')
        .select('thread_id')
        .where('project_id', '=', row.project_id)
        .where('message_id_header', '=', row.message_id_header)
        .executeTakeFirst();
      return holder?.thread_id ?? row.thread_id;
    },
    async claimScans(now, limit, leaseMs) {
      const rows = await db
        .updateTable('inbound_attachments')
        .set({ scan_after: now + leaseMs })
        .where('id', 'in', (q) =>
          q
            .selectFrom('inbound_attachments')
            .select('id')
            .where('scan_state', '=', 'pending')
            .where('scan_after', '<=', now)
            .orderBy('scan_after')
            .orderBy('id')
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .returning(['id', 'scan_attempts'])
        .execute();
      return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    async releaseScans(ids, now) {
      await db
        .updateTable('inbound_attachments')
        .set({ scan_after: now })
        .where('id', 'in', [...ids])
        .where('scan_state', '=', 'pending')
        .where('scan_after', '>', now)
        .execute();
    },
    async recordScan(trx, id, fields) {
      await trx
        .updateTable('inbound_attachments')
        .set({
          ...textSafe({ scan_signature: fields.signature ?? null, scan_detail: fields.detail ?? null }),
          scan_state: fields.state,
          // Attempts and the next scan time change only when the verdict sets them.
          ...(fields.attempts === undefined ? {} : { scan_attempts: fields.attempts }),
          ...(fields.scanAfter === undefined ? {} : { scan_after: fields.scanAfter }),
          scanned_at: fields.state === 'pending' ? null : fields.at,
        })
        .where('id', '=', id)
        .where('scan_state', '=', 'pending')
        .execute();
    },
    async attachmentContent(id) {
      const row = await db
        .selectFrom('inbound_attachments')
        .select('content')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.content;
    },
  };
}
