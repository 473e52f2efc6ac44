/**
 * The delivery store's reports, one Kysely path on both engines (they are no hot path): the
 * queue's depth per lane (`posthorn queue stats`) and the SMTP transactions logged since a point
 * (the status area's deferral rate).
 */
import type { Db } from '../../platform/db/database.js';
import type { LaneDepth } from './store-rows.js';

export function deliveryReports(db: Db) {
  return {
    /** Per-lane depth for `posthorn queue stats` (a scan of the queued jobs; not for hot paths). */
    async depth(now: number): Promise<LaneDepth[]> {
      const rows = await db
        .selectFrom('delivery_jobs')
        .select((eb) => [
          'traffic',
          'lane',
          eb.fn.countAll<number>().as('queued'),
          eb.fn.sum<number>(eb.case().when('locked_until', '>', now).then(1).else(0).end()).as('in_flight'),
          eb.fn.sum<number>(eb.case().when('attempts', '>', 0).then(1).else(0).end()).as('deferred'),
          eb.fn.min<number>('created_at').as('oldest'),
        ])
        .where('state', '=', 'queued')
        .groupBy(['traffic', 'lane'])
        .orderBy('traffic')
        .orderBy('lane')
        .execute();
      return rows.map((row) => ({
        traffic: row.traffic,
        lane: row.lane,
        queued: Number(row.queued),
        inFlight: Number(row.in_flight ?? 0),
        deferred: Number(row.deferred ?? 0),
        oldestCreatedAt: row.oldest === null ? null : Number(row.oldest),
      }));
    },

    /**
     * SMTP transactions logged after attempt `afterId`, counted per lane and outcome, and the
     * newest ID read; without `afterId`, nothing is counted and the newest ID is returned (a
     * reader starts from now). Incremental, so a reader polling it reads each row once.
     */
    async attemptCountsAfter(
      afterId: number | undefined,
    ): Promise<{ lastId: number; counts: { lane: string | null; outcome: string; count: number }[] }> {
      const newest = await db
        .selectFrom('delivery_attempts')
        .select((eb) => eb.fn.max<number>('id').as('id'))
        .executeTakeFirst();
      const lastId = Number(newest?.id ?? 0);
      if (afterId === undefined || lastId <= afterId)
        return { lastId: Math.max(lastId, afterId ?? 0), counts: [] };
      const rows = await db
        .selectFrom('delivery_attempts')
        .select((eb) => ['lane', 'outcome', eb.fn.countAll<number>().as('count')])
        .where('id', '>', afterId)
        .where('id', '<=', lastId)
        .groupBy(['lane', 'outcome'])
        .execute();
      return {
        lastId,
        counts: rows.map((row) => ({ lane: row.lane, outcome: row.outcome, count: Number(row.count) })),
      };
    },
  };
}
