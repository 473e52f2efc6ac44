/**
 * The only file that queries `tracking_settings` and `tracking_hits` (migration 0023), through
 * Kysely, but for one hot path: hits arrive in batches from the recorder (recorder.ts) and are
 * inserted inside the recorder's transaction by `insertHitsWithin`, the storage port of DESIGN.md
 * §8, whose adapter the store's build picks from the engine: on SQLite a prepared statement (a
 * Kysely insert of the same rows cost 2 to 8 times as much, blocking the event loop that answers
 * the hits; BENCHMARKS.md, tracking), on PostgreSQL one multi-row insert through Kysely.
 */
import type SQLite from 'better-sqlite3';
import type { Insertable } from 'kysely';
import type { Db, Engine } from '../platform/db/database.js';
import type { TrackingHitsTable, TrackingSettingsTable } from '../platform/db/tables.js';

export type NewHit = Insertable<TrackingHitsTable>;

const DAY_MS = 86_400_000;

const INSERT_HIT = `insert into tracking_hits
  (project_id, message_id, recipient, kind, link_url, link_index, at, method, ip_prefix, agent_class, machine,
   machine_reason, proxy, event_id)
  values (@project_id, @message_id, @recipient, @kind, @link_url, @link_index, @at, @method, @ip_prefix,
          @agent_class, @machine, @machine_reason, @proxy, @event_id)`;

export function createTrackingStore(db: Db, sqlite: SQLite.Database, engine: Engine) {
  let insertHit: SQLite.Statement | undefined;
  const insertWithPrepared = (hits: readonly NewHit[]): void => {
    if (!sqlite.inTransaction) throw new Error('insertHitsWithin needs an open transaction');
    insertHit ??= sqlite.prepare(INSERT_HIT);
    for (const hit of hits) insertHit.run(hit);
  };
  const insertWithKysely = async (trx: Db, hits: readonly NewHit[]): Promise<void> => {
    if (hits.length === 0) return;
    await trx
      .insertInto('tracking_hits')
      .values(hits as NewHit[])
      .execute();
  };
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
     * Inserts hits in the caller's write transaction (`writeTransaction`'s `trx`: the recorder's,
     * beside their events): on SQLite with a prepared statement on the connection that holds it
     * (the hot path), on PostgreSQL in one statement through `trx`.
     */
    async insertHitsWithin(trx: Db, hits: readonly NewHit[]): Promise<void> {
      if (engine === 'postgresql') await insertWithKysely(trx, hits);
      else insertWithPrepared(hits);
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
