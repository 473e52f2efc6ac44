/**
 * Keeps the history index (migration 0021c) in step with `messages`: it reads the messages after
 * the last one indexed (by rowid, which only grows: messages are never deleted), writes their
 * history rows, their search text and the counts, in one transaction per batch. It runs on a
 * short timer and before every history query (`catchUpWithin`), so a list is not behind the
 * store, while an accepted send writes nothing more. A backlog (a store that predates the index,
 * or what a broadcast's delivery left while the timer waited) is worked through in bounded batches,
 * yielding to other work between batches; a query waits for it for up to 2 s.
 */
import { sql } from 'kysely';
import type { Db } from '../../platform/db/database.js';
import { lockInTransaction } from '../../platform/db/transaction-lock.js';
import type { HistoryDialect } from './dialect.js';

/**
 * Messages per batch. A batch runs on the event loop (better-sqlite3 is synchronous) and holds
 * the write lock: 200 keep each under ~50 ms on a busy two-core host, so sends and deliveries
 * beside it wait at most that long.
 */
export const BATCH = 200;

/** Indexes up to `limit` messages; returns how many it indexed. */
export async function indexBatch(db: Db, dialect: HistoryDialect, limit = BATCH): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // PostgreSQL: a history query's catch-up on one node and the engine on another never index
    // the same messages at once.
    await lockInTransaction(trx, 'history-indexer');
    const last = await sql<{
      last: number | null;
    }>`select max(message_rowid) as last from message_history`.execute(trx);
    const after = last.rows[0]?.last ?? 0;
    const rows = await dialect.pending(trx, after, limit);
    if (rows.length === 0) return 0;
    const recipients = await sql<{ message_id: string; email: string; display: string; kind: string }>`
      select message_id, email, display, kind from message_recipients
      where message_id in (${sql.join(rows.map((row) => row.id))}) order by rowid`.execute(trx);
    const byMessage = new Map<string, { first: string; all: string[] }>();
    for (const r of recipients.rows) {
      const entry = byMessage.get(r.message_id) ?? { first: '', all: [] };
      if (entry.first === '' && r.kind === 'to') entry.first = r.email;
      entry.all.push(r.display === r.email ? r.email : `${r.display} ${r.email}`);
      byMessage.set(r.message_id, entry);
    }
    const counts = new Map<string, { project_id: string; mode: string; status: string; n: number }>();
    for (const row of rows) {
      const found = byMessage.get(row.id);
      await sql`insert into message_history values (${row.rowid}, ${row.id}, ${row.project_id}, ${row.mode},
                  ${row.status}, ${row.from_email}, ${row.subject}, ${found?.first ?? ''})`.execute(trx);
      const text = [row.id, row.from_header, row.subject, ...(found?.all ?? [])].join('\n');
      await sql`insert into message_search (rowid, body) values (${row.rowid}, ${text})`.execute(trx);
      const key = `${row.project_id}\n${row.mode}\n${row.status}`;
      const count = counts.get(key) ?? {
        project_id: row.project_id,
        mode: row.mode,
        status: row.status,
        n: 0,
      };
      count.n += 1;
      counts.set(key, count);
    }
    for (const c of counts.values()) {
      await sql`insert into message_history_counts values (${c.project_id}, ${c.mode}, ${c.status}, ${c.n})
                on conflict (project_id, mode, status) do update set n = message_history_counts.n + excluded.n`.execute(
        trx,
      );
    }
    return rows.length;
  });
}

export function createHistoryIndexer(db: Db, dialect: HistoryDialect) {
  let running: Promise<number> | undefined;
  const once = (limit: number) => {
    running ??= indexBatch(db, dialect, limit).finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    /** One batch now (or the batch already running); the timer's step (engine.ts). */
    catchUp: () => once(BATCH),
    /**
     * Batches until nothing is left or `ms` have passed, yielding between them: a history query
     * calls it first, so a list is not behind the store even after the timer waited for a
     * broadcast's delivery (engine.ts), nor held long by a huge backlog.
     */
    async catchUpWithin(ms: number): Promise<void> {
      const until = Date.now() + ms;
      while ((await once(BATCH)) === BATCH && Date.now() < until) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    /** Batches until nothing is left (tests, benchmarks, the timer after a backlog). */
    async drain(): Promise<void> {
      while ((await once(BATCH)) > 0);
    },
  };
}

export type HistoryIndexer = ReturnType<typeof createHistoryIndexer>;
