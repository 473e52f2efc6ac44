/**
 * The only file that queries `tracking_settings` and `tracking_hits` (migration 0023), through
 * Kysely. Hits arrive here in batches from the recorder (recorder.ts), never one per request.
 */
import type { Insertable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { TrackingHitsTable, TrackingSettingsTable } from '../platform/db/tables.js';

export type NewHit = Insertable<TrackingHitsTable>;

/** SQLite binds at most 32 766 variables per statement; 15 columns a row. */
const HITS_PER_INSERT = 500;
const DAY_MS = 86_400_000;

export function createTrackingStore(db: Db) {
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

    /** Inserts hits with `executor` (the recorder's transaction, beside their events). */
    async insertHits(executor: Db, hits: readonly NewHit[]): Promise<void> {
      for (let i = 0; i < hits.length; i += HITS_PER_INSERT) {
        await executor
          .insertInto('tracking_hits')
          .values(hits.slice(i, i + HITS_PER_INSERT))
          .execute();
      }
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
