/**
 * The only queries of `status_incidents` and `status_incident_updates`. An incident and each of
 * its updates are written in one transaction by the service; readers load them newest first.
 */
import type { Db } from '../../platform/db/database.js';
import type { StatusIncidentUpdatesTable, StatusIncidentsTable } from '../../platform/db/tables.js';

export type IncidentRow = StatusIncidentsTable;
export type UpdateRow = Omit<StatusIncidentUpdatesTable, 'seq'> & { readonly seq: number };
export type NewUpdateRow = Omit<StatusIncidentUpdatesTable, 'seq'>;

export interface IncidentWithUpdates {
  readonly incident: IncidentRow;
  /** Newest first. */
  readonly updates: readonly UpdateRow[];
}

export function createIncidentStore(db: Db) {
  async function withUpdates(
    rows: readonly IncidentRow[],
    executor: Db = db,
  ): Promise<IncidentWithUpdates[]> {
    if (rows.length === 0) return [];
    const updates = await executor
      .selectFrom('status_incident_updates')
      .selectAll()
      .where(
        'incident_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('seq', 'desc')
      .execute();
    const byIncident = new Map<string, UpdateRow[]>();
    for (const update of updates) {
      const list = byIncident.get(update.incident_id) ?? [];
      list.push(update);
      byIncident.set(update.incident_id, list);
    }
    return rows.map((incident) => ({ incident, updates: byIncident.get(incident.id) ?? [] }));
  }

  const find = (id: string, executor: Db = db): Promise<IncidentRow | undefined> =>
    executor.selectFrom('status_incidents').selectAll().where('id', '=', id).executeTakeFirst();

  return {
    async insert(executor: Db, incident: IncidentRow, update: NewUpdateRow): Promise<void> {
      await executor.insertInto('status_incidents').values(incident).execute();
      await executor.insertInto('status_incident_updates').values(update).execute();
    },

    async change(executor: Db, id: string, patch: Partial<IncidentRow>, update: NewUpdateRow): Promise<void> {
      await executor.updateTable('status_incidents').set(patch).where('id', '=', id).execute();
      await executor.insertInto('status_incident_updates').values(update).execute();
    },

    find,

    async findWithUpdates(id: string, executor: Db = db): Promise<IncidentWithUpdates | undefined> {
      const row = await find(id, executor);
      return row && (await withUpdates([row], executor))[0];
    },

    /** Newest first, after the incident `after` (an ID) when given. */
    async page(
      limit: number,
      after?: string,
      openOnly = false,
      kind?: IncidentRow['kind'],
    ): Promise<IncidentWithUpdates[]> {
      let query = db.selectFrom('status_incidents').selectAll().orderBy('id', 'desc').limit(limit);
      if (kind !== undefined) query = query.where('kind', '=', kind);
      if (after !== undefined) query = query.where('id', '<', after);
      if (openOnly) query = query.where('closed_at', 'is', null);
      return withUpdates(await query.execute());
    },

    /** Incidents and maintenance windows not closed yet. */
    async open(): Promise<IncidentWithUpdates[]> {
      return withUpdates(
        await db
          .selectFrom('status_incidents')
          .selectAll()
          .where('closed_at', 'is', null)
          .orderBy('id', 'desc')
          .execute(),
      );
    },

    /** The open automatic incident of `component`, if any. */
    async openAutomatic(component: string, executor: Db = db): Promise<IncidentRow | undefined> {
      return executor
        .selectFrom('status_incidents')
        .selectAll()
        .where('auto_component', '=', component)
        .where('closed_at', 'is', null)
        .executeTakeFirst();
    },

    /** Maintenance windows whose start or end has come and that have not moved on yet. */
    async maintenanceDue(now: number): Promise<IncidentRow[]> {
      return db
        .selectFrom('status_incidents')
        .selectAll()
        .where('kind', '=', 'maintenance')
        .where('closed_at', 'is', null)
        .where((eb) =>
          eb.or([
            eb.and([eb('state', '=', 'scheduled'), eb('starts_at', '<=', now)]),
            eb.and([eb('state', '=', 'in_progress'), eb('ends_at', '<=', now)]),
          ]),
        )
        .execute();
    },

    /** The sequence number of the newest update: it moves with every change, whoever made it. */
    async lastSeq(): Promise<number> {
      const row = await db
        .selectFrom('status_incident_updates')
        .select((eb) => eb.fn.max<number>('seq').as('seq'))
        .executeTakeFirst();
      return Number(row?.seq ?? 0);
    },

    async updateById(id: string): Promise<UpdateRow | undefined> {
      return db.selectFrom('status_incident_updates').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Updates whose notices have not been queued yet, oldest first. */
    async unnotified(limit: number): Promise<UpdateRow[]> {
      return db
        .selectFrom('status_incident_updates')
        .selectAll()
        .where('notified_at', 'is', null)
        .orderBy('seq')
        .limit(limit)
        .execute();
    },

    async markNotified(executor: Db, seq: number, at: number): Promise<void> {
      await executor
        .updateTable('status_incident_updates')
        .set({ notified_at: at })
        .where('seq', '=', seq)
        .execute();
    },
  };
}

export type IncidentStore = ReturnType<typeof createIncidentStore>;
