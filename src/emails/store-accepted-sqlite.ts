/**
 * The send path's accepted-send writes on SQLite, the hot path: statements prepared once on the
 * raw handle, run inside a Kysely transaction (which holds Kysely's connection lock, so no other
 * transaction interleaves with them). store-accepted-pg.ts writes the same rows on PostgreSQL.
 */
import type SQLite from 'better-sqlite3';
import type { KeyMode, MessageStatus } from '../platform/db/tables.js';
import { newId } from '../platform/ids.js';
import { acceptedRows } from './accepted-rows.js';
import type { Draft, MessageRef } from './model.js';

export type AcceptedOnSqlite = ReturnType<typeof acceptedOnSqlite>;

/** Prepares the statements: call once the tables exist (after migrations). */
export function acceptedOnSqlite(sqlite: SQLite.Database) {
  const s = prepare(sqlite);

  /** The message an idempotency key recorded after `since` points at, if any. */
  function findIdempotent(
    projectId: string,
    mode: KeyMode,
    key: string,
    since: number,
  ): MessageRef | undefined {
    const row = s.findIdempotent.get(projectId, mode, key, since) as RefRow | undefined;
    return row && toRef(row);
  }

  /**
   * Writes one accepted send inside the caller's transaction; returns the existing message instead
   * when the draft's idempotency key (younger than `ttlMs`) is already taken, writing nothing.
   */
  function insertAccepted(draft: Draft, now: number, ttlMs: number): { ref: MessageRef; created: boolean } {
    if (draft.idempotencyKey !== null) {
      const existing = findIdempotent(draft.projectId, draft.mode, draft.idempotencyKey, now - ttlMs);
      if (existing) return { ref: existing, created: false };
    }
    const id = draft.id ?? newId('msg', now);
    const { traffic, status, message, jobState, jobDomains } = acceptedRows(draft);
    s.insertMessage.run({ id, ...message, now });
    if (draft.html !== null || draft.text !== null) s.insertBody.run(id, draft.html, draft.text);
    for (const recipient of draft.recipients) {
      s.insertRecipient.run(
        newId('rcp', now),
        id,
        draft.projectId,
        recipient.kind,
        recipient.email,
        recipient.mailbox.display,
        recipient.mailbox.domain,
        now,
      );
    }
    for (const domain of jobDomains) {
      s.insertJob.run(
        newId('job', now),
        id,
        draft.projectId,
        domain,
        traffic,
        draft.mode,
        jobState,
        draft.sendAt ?? now,
        now,
        now,
      );
    }
    if (draft.idempotencyKey !== null)
      s.upsertIdempotency.run(draft.projectId, draft.mode, draft.idempotencyKey, id, now);
    return { ref: { id, status, createdAt: now }, created: true };
  }

  /** The mode of the key a message was sent with. */
  function modeOf(messageId: string): KeyMode | undefined {
    return (s.modeOf.get(messageId) as { mode: KeyMode } | undefined)?.mode;
  }

  /** The lane the delivery engine last recorded on the job that carries a recipient, if any. */
  function laneOf(messageId: string, recipient: string): string | undefined {
    return (s.laneOf.get(messageId, recipient) as { lane: string } | undefined)?.lane;
  }

  return { findIdempotent, insertAccepted, modeOf, laneOf };
}

export interface RefRow {
  id: string;
  status: MessageStatus;
  created_at: number;
}

export const toRef = (row: RefRow): MessageRef => ({
  id: row.id,
  status: row.status,
  createdAt: row.created_at,
});

function prepare(sqlite: SQLite.Database) {
  return {
    findIdempotent: sqlite.prepare(
      `select m.id, m.status, m.created_at from idempotency_keys k join messages m on m.id = k.message_id
       where k.project_id = ? and k.mode = ? and k.key = ? and k.created_at > ?`,
    ),
    insertMessage: sqlite.prepare(
      `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
         reply_to, subject, headers, tags, template_id, template_version, variables, send_at,
         track_opens, track_clicks, created_at, updated_at)
       values (@id, @project_id, @api_key_id, @mode, @traffic, @status, @from_header, @from_email, @from_domain,
         @reply_to, @subject, @headers, @tags, @template_id, @template_version, @variables, @send_at,
         @track_opens, @track_clicks, @now, @now)`,
    ),
    modeOf: sqlite.prepare('select mode from messages where id = ?'),
    // Synchronous, as the reputation projection's SQLite batch asks it (reputation/build.ts);
    // store.ts's `lanesOf` is the Kysely query for both engines.
    laneOf: sqlite.prepare(
      `select j.lane from message_recipients r
       join delivery_jobs j on j.message_id = r.message_id and j.domain = r.domain
       where r.message_id = ? and r.email = ? and j.lane is not null limit 1`,
    ),
    insertBody: sqlite.prepare('insert into message_bodies (message_id, html, text) values (?, ?, ?)'),
    insertRecipient: sqlite.prepare(
      `insert into message_recipients (id, message_id, project_id, kind, email, display, domain, status, attempts, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, 'queued', 0, ?)`,
    ),
    insertJob: sqlite.prepare(
      `insert into delivery_jobs (id, message_id, project_id, domain, traffic, mode, state, lane, due_at, locked_until,
         attempts, last_error, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, null, ?, null, 0, null, ?, ?)`,
    ),
    // An expired record (older than 24 h) is simply taken over by the new message.
    upsertIdempotency: sqlite.prepare(
      `insert into idempotency_keys (project_id, mode, key, message_id, created_at) values (?, ?, ?, ?, ?)
       on conflict (project_id, mode, key) do update set message_id = excluded.message_id, created_at = excluded.created_at`,
    ),
  };
}
