/**
 * The only file that reads `analytics_daily` and `analytics_recipients` for reports and
 * retention (the projection writes them through its own statements, projector.ts and
 * projector-pg.ts). Two adapters of one port: SQLite's prepared statements, answering
 * synchronously (the reputation projection asks `laneOf` per event), and PostgreSQL's Kysely
 * queries, answering with promises.
 */
import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { KeyMode } from '../platform/db/tables.js';
import { COUNTERS, type Counters } from './transitions.js';

export type DailyAggregate = Counters & { day: number; lane: string; latency: string };

/** What either adapter answers: at once (SQLite) or later (PostgreSQL). */
type Answer<T> = T | Promise<T>;

export interface AnalyticsStore {
  /** The lane recorded for one recipient of a message ('' before delivery chose one), if any. */
  laneOf(messageId: string, recipient: string): Answer<string | undefined>;
  /** The lanes recorded for these (message, recipient) pairs, by `message_id\u0000recipient` ('' left out). */
  lanesOf(pairs: readonly { message_id: string; recipient: string }[]): Promise<Map<string, string>>;
  /** Aggregate rows of a project's live or test traffic for days `first`..`last`. */
  window(projectId: string, mode: KeyMode, first: number, last: number): Answer<DailyAggregate[]>;
  /** Forgets up to `batch` settled records unchanged since `cutoff`; returns how many went. */
  purgeSettledBefore(cutoff: number, batch?: number): Answer<number>;
}

export function createAnalyticsStore(
  store: { readonly engine: 'sqlite' | 'postgresql'; readonly sqlite: SQLite.Database },
  db: Db,
): AnalyticsStore {
  return store.engine === 'postgresql'
    ? createPostgresAnalyticsStore(db)
    : createSqliteAnalyticsStore(store.sqlite);
}

const WINDOW_COLUMNS = ['day', 'lane', ...COUNTERS, 'latency'] as const;

/** PostgreSQL: the same reads through Kysely. */
export function createPostgresAnalyticsStore(db: Db): AnalyticsStore {
  return {
    async laneOf(messageId, recipient) {
      const row = await db
        .selectFrom('analytics_recipients')
        .select('lane')
        .where('message_id', '=', messageId)
        .where('recipient', '=', recipient)
        .executeTakeFirst();
      return row?.lane;
    },
    async lanesOf(pairs) {
      const lanes = new Map<string, string>();
      for (let i = 0; i < pairs.length; i += 1000) {
        const slice = pairs.slice(i, i + 1000);
        const { rows } = await sql<{ message_id: string; recipient: string; lane: string }>`
          select r.message_id, r.recipient, r.lane from analytics_recipients r
           join unnest(${slice.map((p) => p.message_id)}::text[], ${slice.map((p) => p.recipient)}::text[])
             as w(message_id, recipient) using (message_id, recipient)`.execute(db);
        for (const row of rows)
          if (row.lane !== '') lanes.set(`${row.message_id}\u0000${row.recipient}`, row.lane);
      }
      return lanes;
    },
    window(projectId, mode, first, last) {
      return db
        .selectFrom('analytics_daily')
        .select(WINDOW_COLUMNS)
        .where('project_id', '=', projectId)
        .where('mode', '=', mode)
        .where('day', '>=', first)
        .where('day', '<=', last)
        .execute();
    },
    async purgeSettledBefore(cutoff, batch = 5000) {
      // A bounded batch: PostgreSQL's delete has no limit, so the rows are chosen by ctid.
      const result = await sql`
        delete from analytics_recipients where ctid = any(array(
          select ctid from analytics_recipients
           where status not in ('scheduled', 'queued', 'deferred') and updated_at < ${cutoff}
           limit ${batch}))`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}

/** SQLite: prepared statements, answering synchronously. */
export function createSqliteAnalyticsStore(sqlite: SQLite.Database) {
  let window: SQLite.Statement<[string, KeyMode, number, number], DailyAggregate> | undefined;
  let purge: SQLite.Statement<[number, number]> | undefined;
  let lane: SQLite.Statement<[string, string], { lane: string }> | undefined;
  return {
    /** The lane recorded for one recipient of a message ('' before delivery chose one), if any. */
    laneOf(messageId: string, recipient: string): string | undefined {
      lane ??= sqlite.prepare('select lane from analytics_recipients where message_id = ? and recipient = ?');
      return lane.get(messageId, recipient)?.lane;
    },

    async lanesOf(pairs: readonly { message_id: string; recipient: string }[]): Promise<Map<string, string>> {
      const lanes = new Map<string, string>();
      for (const pair of pairs) {
        const found = this.laneOf(pair.message_id, pair.recipient);
        if (found) lanes.set(`${pair.message_id}\u0000${pair.recipient}`, found);
      }
      return lanes;
    },

    /** Aggregate rows of a project's live or test traffic for days `first`..`last` (primary-key range). */
    window(projectId: string, mode: KeyMode, first: number, last: number): DailyAggregate[] {
      window ??= sqlite.prepare(
        `select day, lane, accepted, queued, deferred, delivered, bounced, complained, failed, suppressed,
                unique_opens, unique_clicks, machine_opens, machine_clicks, latency
         from analytics_daily where project_id = ? and mode = ? and day between ? and ?`,
      );
      return window.all(projectId, mode, first, last);
    },

    /**
     * Forgets, a batch at a time, the records whose outcome is final and that have not changed
     * since `cutoff`; the aggregates keep what they counted. A pending record (scheduled, queued,
     * deferred) stays whatever its age: its release or outcome is still to come and must move it,
     * not count it again. The condition is the partial index's (migration 0012), word for word,
     * so SQLite can use it.
     */
    purgeSettledBefore(cutoff: number, batch = 5000): number {
      purge ??= sqlite.prepare(
        `delete from analytics_recipients where (message_id, recipient) in
           (select message_id, recipient from analytics_recipients
            where status not in ('scheduled', 'queued', 'deferred') and updated_at < ? limit ?)`,
      );
      return purge.run(cutoff, batch).changes;
    },
  };
}
