/**
 * The send path's accepted-send writes on PostgreSQL (the SQLite adapter is the prepared
 * statements of store-accepted-sqlite.ts): the same rows through Kysely, inside the group commit's transaction.
 *
 * Idempotency across nodes: the key's row is claimed FIRST (`on conflict do nothing`). Two nodes
 * accepting the same key at once: the second insert waits for the first transaction, then finds
 * the key taken and answers with the first node's message, writing nothing. An expired record
 * (older than 24 h) is taken over by the new message, as on SQLite.
 */
import type { Db } from '../platform/db/database.js';
import type { KeyMode } from '../platform/db/tables.js';
import { newId } from '../platform/ids.js';
import { acceptedRows } from './accepted-rows.js';
import type { Draft, MessageRef } from './model.js';

export async function findIdempotentOnPostgres(
  db: Db,
  projectId: string,
  mode: KeyMode,
  key: string,
  since: number,
): Promise<MessageRef | undefined> {
  const row = await db
    .selectFrom('idempotency_keys as k')
    .innerJoin('messages as m', 'm.id', 'k.message_id')
    .select(['m.id', 'm.status', 'm.created_at'])
    .where('k.project_id', '=', projectId)
    .where('k.mode', '=', mode)
    .where('k.key', '=', key)
    .where('k.created_at', '>', since)
    .executeTakeFirst();
  return row && { id: row.id, status: row.status, createdAt: row.created_at };
}

export async function insertAcceptedOnPostgres(
  trx: Db,
  draft: Draft,
  now: number,
  ttlMs: number,
): Promise<{ ref: MessageRef; created: boolean }> {
  const id = draft.id ?? newId('msg', now);
  if (draft.idempotencyKey !== null) {
    const claimed = await trx
      .insertInto('idempotency_keys')
      .values({
        project_id: draft.projectId,
        mode: draft.mode,
        key: draft.idempotencyKey,
        message_id: id,
        created_at: now,
      })
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'mode', 'key'])
          .doUpdateSet({ message_id: id, created_at: now })
          // Only an expired record is taken over.
          .where('idempotency_keys.created_at', '<=', now - ttlMs),
      )
      .returning('message_id')
      .executeTakeFirst();
    if (claimed === undefined) {
      const existing = await findIdempotentOnPostgres(
        trx,
        draft.projectId,
        draft.mode,
        draft.idempotencyKey,
        now - ttlMs,
      );
      if (existing) return { ref: existing, created: false };
      throw new Error('the idempotency key is held by a message that cannot be read');
    }
  }
  const { traffic, status, message, jobState, jobDomains } = acceptedRows(draft);
  // The key's row points at the message: it must exist before the transaction ends, and the
  // foreign keys of the recipients and jobs need it first.
  await trx
    .insertInto('messages')
    .values({
      id,
      ...message,
      created_at: now,
      updated_at: now,
    })
    .execute();
  if (draft.html !== null || draft.text !== null)
    await trx
      .insertInto('message_bodies')
      .values({ message_id: id, html: draft.html, text: draft.text })
      .execute();
  if (draft.recipients.length > 0)
    await trx
      .insertInto('message_recipients')
      .values(
        draft.recipients.map((recipient) => ({
          id: newId('rcp', now),
          message_id: id,
          project_id: draft.projectId,
          kind: recipient.kind,
          email: recipient.email,
          display: recipient.mailbox.display,
          domain: recipient.mailbox.domain,
          status: 'queued' as const,
          attempts: 0,
          updated_at: now,
        })),
      )
      .execute();
  if (jobDomains.length > 0)
    await trx
      .insertInto('delivery_jobs')
      .values(
        jobDomains.map((domain) => ({
          id: newId('job', now),
          message_id: id,
          project_id: draft.projectId,
          domain,
          traffic,
          mode: draft.mode,
          state: jobState,
          lane: null,
          due_at: draft.sendAt ?? now,
          locked_until: null,
          attempts: 0,
          last_error: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  return { ref: { id, status, createdAt: now }, created: true };
}

export async function modeOfOnPostgres(db: Db, messageId: string): Promise<KeyMode | undefined> {
  return (await db.selectFrom('messages').select('mode').where('id', '=', messageId).executeTakeFirst())
    ?.mode;
}
