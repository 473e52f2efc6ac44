/**
 * The history store: the only file that reads the history index (migration 0021c) and, for a
 * page's and a detail's fields, `messages`, `message_bodies` and `message_recipients`. The
 * SQLite adapter searches with FTS5's trigram tokenizer; on PostgreSQL the same queries search
 * with ILIKE served by a `pg_trgm` GIN index (docs/decisions/storage.md).
 */
import { type RawBuilder, sql } from 'kysely';
import { broadcastBodiesOf } from '../../broadcasts/render-content.js';
import type { Db } from '../../platform/db/database.js';
import type { KeyMode, MessageStatus } from '../../platform/db/tables.js';
import { normalizeEmail } from '../../platform/normalize-email.js';
import type { HistoryDialect } from './dialect.js';

export const SORTS = ['created_at', 'recipient', 'subject', 'status', 'from'] as const;
export type Sort = (typeof SORTS)[number];

/** Searches match at most this many messages (newest first); `total` is exact up to here. */
export const SEARCH_CAP = 10_000;

export interface HistoryQuery {
  readonly projectId: string;
  readonly mode: KeyMode;
  readonly page: number;
  readonly pageSize: number;
  readonly search?: string | undefined;
  readonly status?: MessageStatus | undefined;
  readonly sort: Sort;
  readonly order: 'asc' | 'desc';
}

export interface HistoryRow {
  readonly id: string;
  readonly from_header: string;
  readonly subject: string;
  readonly status: MessageStatus;
  readonly created_at: number;
}

const COLUMN: Record<Sort, string> = {
  created_at: 'id',
  recipient: 'recipient',
  subject: 'subject',
  status: 'status',
  from: 'from_email',
};

/** The search as a stored recipient address when it is a whole address, else undefined. */
function normalizedAddress(search: string): string | undefined {
  if (!/^[^\s@<>"]+@[^\s@<>"]+\.[a-z0-9-]{2,}$/i.test(search)) return undefined;
  return normalizeEmail(search);
}

export function createHistoryStore(db: Db, dialect: HistoryDialect) {
  const { plus, textMatch, contains } = dialect;

  /** The IDs of the page, and the total, for a query with a search. */
  const searched = async (q: HistoryQuery, offset: number) => {
    const search = q.search ?? '';
    const status = q.status === undefined ? sql`` : sql`and h.status = ${q.status}`;
    const plusStatus = q.status === undefined ? sql`` : sql`and ${plus('h.status')} = ${q.status}`;
    // A whole address is looked up exactly in the sender and recipient indexes: a trigram search
    // for one reads the long posting lists of its common trigrams ("@ex", ".co") on a big store.
    // Trigrams need three characters; a shorter search reads the project's newest messages.
    const address = normalizedAddress(search);
    const hits: RawBuilder<unknown> = address
      ? sql`select h.* from message_history h
            where h.message_rowid in (
                select message_rowid from message_history
                where project_id = ${q.projectId} and mode = ${q.mode} and from_email in (${search}, ${address})
                union
                select m.rowid from message_recipients r join messages m on m.id = r.message_id
                where r.project_id = ${q.projectId} and r.email = ${address})
              and ${plus('h.project_id')} = ${q.projectId} and ${plus('h.mode')} = ${q.mode} ${plusStatus}
            order by h.message_rowid desc limit ${SEARCH_CAP}`
      : [...search].length >= 3
        ? sql`select h.* from message_search s join message_history h on h.message_rowid = s.rowid
              where ${textMatch(search)} and ${plus('h.project_id')} = ${q.projectId}
                and ${plus('h.mode')} = ${q.mode} ${plusStatus}
              order by s.rowid desc limit ${SEARCH_CAP}`
        : sql`select * from (select * from message_history h
                where h.project_id = ${q.projectId} and h.mode = ${q.mode} ${status}
                order by h.id desc limit ${SEARCH_CAP}) h
              where ${contains(sql`h.id || ' ' || h.from_email || ' ' || h.subject || ' ' || h.recipient`, search)}`;
    const column = sql.ref(`hits.${COLUMN[q.sort]}`);
    const direction = q.order === 'asc' ? sql`asc` : sql`desc`;
    const { rows } = await sql<{ id: string; total: number }>`
      with hits as (${hits})
      select id, (select count(*) from hits) as total from hits
      order by ${column} ${direction}, hits.id ${direction} limit ${q.pageSize} offset ${offset}`.execute(db);
    if (rows.length > 0) return { ids: rows.map((r) => r.id), total: Number(rows[0]?.total) };
    const count = await sql<{
      total: number;
    }>`with hits as (${hits}) select count(*) as total from hits`.execute(db);
    return { ids: [], total: Number(count.rows[0]?.total ?? 0) };
  };

  /** The IDs of the page, and the total, without a search: index walks and the kept counts. */
  const listed = async (q: HistoryQuery, offset: number) => {
    let query = db
      .selectFrom('message_history')
      .select('id')
      .where('project_id', '=', q.projectId)
      .where('mode', '=', q.mode);
    if (q.status !== undefined) query = query.where('status', '=', q.status);
    const column = COLUMN[q.sort] as 'id';
    query = query.orderBy(column, q.order);
    if (column !== 'id') query = query.orderBy('id', q.order);
    const rows = await query.limit(q.pageSize).offset(offset).execute();
    let counts = db
      .selectFrom('message_history_counts')
      .select((eb) => eb.fn.sum<number>('n').as('total'))
      .where('project_id', '=', q.projectId)
      .where('mode', '=', q.mode);
    if (q.status !== undefined) counts = counts.where('status', '=', q.status);
    const total = Number((await counts.executeTakeFirst())?.total ?? 0);
    return { ids: rows.map((r) => r.id), total };
  };

  return {
    async page(q: HistoryQuery): Promise<{ rows: HistoryRow[]; to: Map<string, string[]>; total: number }> {
      const offset = (q.page - 1) * q.pageSize;
      const { ids, total } = q.search ? await searched(q, offset) : await listed(q, offset);
      if (ids.length === 0) return { rows: [], to: new Map(), total };
      const found = await db
        .selectFrom('messages')
        .select(['id', 'from_header', 'subject', 'status', 'created_at'])
        .where('id', 'in', ids)
        .execute();
      const byId = new Map(found.map((row) => [row.id, row]));
      const recipients = await db
        .selectFrom('message_recipients')
        .select(['message_id', 'display'])
        .where('message_id', 'in', ids)
        .where('kind', '=', 'to')
        .orderBy('id')
        .execute();
      const to = new Map<string, string[]>();
      for (const r of recipients) to.set(r.message_id, [...(to.get(r.message_id) ?? []), r.display]);
      return { rows: ids.flatMap((id) => byId.get(id) ?? []), to, total };
    },

    /** A message of the project (either mode) with its bodies and recipients. */
    async detail(projectId: string, id: string) {
      const message = await db
        .selectFrom('messages')
        .leftJoin('message_bodies', 'message_bodies.message_id', 'messages.id')
        .selectAll('messages')
        .select(['message_bodies.html', 'message_bodies.text'])
        .where('messages.id', '=', id)
        .where('messages.project_id', '=', projectId)
        .executeTakeFirst();
      if (!message) return undefined;
      // A broadcast's message keeps no bodies of its own: they are written from its broadcast's.
      if (message.html === null && message.text === null && message.traffic === 'marketing') {
        const written = await broadcastBodiesOf(db, id);
        if (written !== undefined) Object.assign(message, written);
      }
      const recipients = await db
        .selectFrom('message_recipients')
        .select(['email', 'kind', 'status', 'smtp_reply'])
        .where('message_id', '=', id)
        .orderBy('id')
        .execute();
      return { message, recipients };
    },
  };
}

export type HistoryStore = ReturnType<typeof createHistoryStore>;
