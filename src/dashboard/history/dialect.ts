/**
 * What the history's SQL says differently on each engine, as one adapter per engine: the build
 * picks one from `storage.engine` (as every storage port does), and the store and the indexer
 * speak through it without knowing which. SQLite searches the index with FTS5's trigram
 * tokenizer and reads new messages in rowid order; PostgreSQL searches with ILIKE served by a
 * `pg_trgm` GIN index and looks back for rowids committed out of order (docs/decisions/storage.md).
 */
import { type RawBuilder, sql } from 'kysely';
import type { Db, Engine } from '../../platform/db/database.js';

/** A message not yet in the history index, as the indexer reads it. */
export interface Pending {
  readonly rowid: number;
  readonly id: string;
  readonly project_id: string;
  readonly mode: 'live' | 'test';
  readonly status: string;
  readonly from_header: string;
  readonly from_email: string;
  readonly subject: string;
}

/** How far below the highest indexed rowid a PostgreSQL batch looks for messages committed late. */
export const LOOKBACK = 10_000;

export interface HistoryDialect {
  /** The column as a filter that must not pick the plan's index (SQLite's unary `+`). */
  plus(column: string): RawBuilder<unknown>;
  /** The condition on `message_search s` for rows whose text contains `search` (3+ characters). */
  textMatch(search: string): RawBuilder<unknown>;
  /** `haystack` contains `needle`, case-insensitively. */
  contains(haystack: RawBuilder<unknown>, needle: string): RawBuilder<unknown>;
  /** Up to `limit` messages not yet indexed, in rowid order; `after` is the highest rowid indexed. */
  pending(trx: Db, after: number, limit: number): Promise<readonly Pending[]>;
}

/** An FTS5 phrase: the text quoted, inner quotes doubled (trigram matches it as a substring). */
const phrase = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** A LIKE pattern matching `text` anywhere, its wildcards escaped (PostgreSQL's default escape `\`). */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const sqliteHistory: HistoryDialect = {
  // `+` keeps SQLite from walking the project's whole index when the matches are few: the matched
  // rowids come first, the project, mode and status only filter them.
  plus: (column) => sql`+${sql.ref(column)}`,
  textMatch: (search) => sql`message_search match ${phrase(search)}`,
  contains: (haystack, needle) => sql`instr(lower(${haystack}), lower(${needle})) > 0`,
  // One writer at a time: rowids commit in order, so nothing appears below the highest indexed.
  pending: async (trx, after, limit) =>
    (
      await sql<Pending>`
        select rowid, id, project_id, mode, status, from_header, from_email, subject
        from messages where rowid > ${after} order by rowid limit ${limit}`.execute(trx)
    ).rows,
};

const postgresHistory: HistoryDialect = {
  // No unary `+` on text; PostgreSQL plans from its statistics.
  plus: (column) => sql.ref(column),
  textMatch: (search) => sql`s.body ilike ${containing(search)}`,
  contains: (haystack, needle) => sql`strpos(lower(${haystack}), lower(${needle})) > 0`,
  // Nodes (and one node's concurrent transactions) take rowids first and commit later, so a
  // message may appear below the highest one indexed; the batch looks back over the last LOOKBACK
  // rowids for any not yet indexed (a primary-key probe each). The rows are read FOR SHARE: a
  // status change committing meanwhile (whose trigger updates only indexed messages) waits for
  // this batch, or this batch waits for it and reads the new status.
  pending: async (trx, after, limit) =>
    (
      await sql<Pending>`
        select rowid, id, project_id, mode, status, from_header, from_email, subject
        from messages m where m.rowid > ${Math.max(0, after - LOOKBACK)}
          and not exists (select 1 from message_history h where h.message_rowid = m.rowid)
        order by m.rowid limit ${limit} for share`.execute(trx)
    ).rows,
};

export const historyDialect = (engine: Engine): HistoryDialect =>
  engine === 'postgresql' ? postgresHistory : sqliteHistory;
