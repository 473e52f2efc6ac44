/**
 * Analytics counts opens and clicks of people only; what it leaves out (opens and clicks made by
 * machines: privacy proxies that fetch every image, security scanners that follow every link) is
 * counted beside them, so a report can say how much it left out. Each recipient record and each
 * daily row gains `machine_opens` and `machine_clicks` (events, not recipients), zero for the past.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['analytics_recipients', 'analytics_daily']) {
    for (const column of ['machine_opens', 'machine_clicks']) {
      await db.schema
        .alterTable(table)
        .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    }
  }
}
