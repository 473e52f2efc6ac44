/**
 * The only file that queries `tracking_settings` and `tracking_hits` (migration 0023), through
 * Kysely, but for one hot path: hits arrive in batches from the recorder (recorder.ts) and are
 * inserted with a prepared statement inside the recorder's transaction, the storage port of
 * DESIGN.md §8 (a Kysely insert of the same rows cost 2 to 8 times as much, blocking the event
 * loop that answers the hits; BENCHMARKS.md, tracking). A PostgreSQL adapter would insert them
 * with one multi-row statement instead.
 */
import type SQLite from 'better-sqlite3';
import type { Insertable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { TrackingHitsTable, TrackingSettingsTable } from '../platform/db/tables.js';

export type NewHit = Insertable<TrackingHitsTable>;

const DAY_MS = 86_400_000;

const INSERT_HIT = `insert into tracking_hits
  (project_id, message_id, recipient, kind, link_url, link_index, at, method, ip_prefix, agent_class, machine,
   machine_reason, proxy, event_id)
  values (@project_id, @message_id, @recipient, @kind, @link_url, @link_index, @at, @method, @ip_prefix,
          @agent_class, @machine, @machine_reason, @proxy, @event_id)`;

export function createTrackingStore(db: Db, sqlite: SQLite.Database) {
  let insertHit: SQLite.Statement | undefined;
  return {
    async settings(projectId: string): Promise<TrackingSettingsTable | undefined> {
      return db
        .selectFrom('tracking_settings')
        .selectAll()
        .where('project_id', '=', projectId)
        .executeTakeFirst();
    },

    async putSettings(row: TrackingSettingsTable): Promise<void> {
      await db
        .insertInto('tracking_settings')
        .values(row)
        .onConflict((c) => c.column('project_id').doUpdateSet(row))
        .execute();
    },

    async setDnsState(
      projectId: string,
      domain: string,
      state: { status: 'pending' | 'verified' | 'failed'; reason: string | null; at: number },
    ): Promise<void> {
      await db
        .updateTable('tracking_settings')
        .set({ dns_status: state.status, dns_reason: state.reason, dns_checked_at: state.at })
        .where('project_id', '=', projectId)
        .where('custom_domain', '=', domain)
        .execute();
    },

    /** Projects with a custom domain (the periodic DNS re-check). */
    async customDomains(): Promise<{ project_id: string; custom_domain: string }[]> {
      const rows = await db
        .selectFrom('tracking_settings')
        .select(['project_id', 'custom_domain'])
        .where('custom_domain', 'is not', null)
        .execute();
      return rows as { project_id: string; custom_domain: string }[];
    },

    /**
     * Inserts hits in the transaction the caller holds open on the shared connection (the
     * recorder's, beside their events), with a prepared statement: the hot path.
     */
    insertHitsInTransaction(hits: readonly NewHit[]): void {
      if (!sqlite.inTransaction) throw new Error('insertHitsInTransaction needs an open transaction');
      insertHit ??= sqlite.prepare(INSERT_HIT);
      for (const hit of hits) insertHit.run(hit);
    },

    /** Inserts hits through Kysely in the caller's transaction (PostgreSQL's recorder). */
    async insertHits(executor: Db, hits: readonly NewHit[]): Promise<void> {
      if (hits.length === 0) return;
      await executor
        .insertInto('tracking_hits')
        .values(hits as NewHit[])
        .execute();
    },

    /**
     * Deletes up to `batch` hits older than their project's `retention_days` (the default for a
     * project without settings); returns how many went. Nothing younger than a day goes, so the
     * index on `at` bounds the scan.
     */
    async purgeExpired(now: number, defaultDays: number, batch = 5000): Promise<number> {
      const result = await db
        .deleteFrom('tracking_hits')
        .where('id', 'in', (q) =>
          q
            .selectFrom('tracking_hits as h')
            .leftJoin('tracking_settings as s', 's.project_id', 'h.project_id')
            .select('h.id')
            .where('h.at', '<', now - DAY_MS)
            .where((eb) =>
              eb(
                'h.at',
                '<',
                eb(
                  eb.val(now),
                  '-',
                  eb(eb.fn.coalesce('s.retention_days', eb.val(defaultDays)), '*', eb.val(DAY_MS)),
                ),
              ),
            )
            .limit(batch),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type TrackingStore = ReturnType<typeof createTrackingStore>;
