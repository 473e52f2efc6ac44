/**
 * Incidents and maintenance windows: open, update and resolve an incident; schedule, update,
 * complete and cancel a maintenance window (its start and end also move it on by themselves,
 * `advanceMaintenance`). Every change writes the incident and one update row in one transaction:
 * the update is what the feed shows and what each verified subscriber is told, once.
 *
 * The command line writes here from its own process; the server learns of those changes by the
 * update sequence (`lastSeq`), and of its own at once (`onChange`).
 */
import { EventEmitter } from 'node:events';
import type { Db } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/unique-violation.js';
import { badRequest, conflict, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import {
  type ComponentId,
  type Impact,
  type IncidentState,
  isClosed,
  OPEN_INCIDENT_STATES,
} from '../model.js';
import { checkComponents, checkImpact, checkMessage, checkTitle } from './input.js';
import {
  createIncidentStore,
  type IncidentRow,
  type IncidentWithUpdates,
  type NewUpdateRow,
} from './store.js';

export interface OpenIncident {
  readonly title: string;
  readonly components: readonly string[];
  readonly impact: string;
  readonly message: string;
}

export interface ScheduleMaintenance {
  readonly title: string;
  readonly components: readonly string[];
  readonly startsAt: number;
  readonly endsAt: number;
  readonly message: string;
}

function updateRow(incident: IncidentRow, state: string, message: string, now: number): NewUpdateRow {
  return {
    id: newId('incu', now),
    incident_id: incident.id,
    state,
    impact: incident.impact,
    message,
    created_at: now,
    notified_at: null,
  };
}

export function createIncidentService(db: Db) {
  const store = createIncidentStore(db);
  const changes = new EventEmitter();
  const changed = () => changes.emit('change');

  async function openRow(row: IncidentRow, message: string): Promise<IncidentWithUpdates> {
    await db
      .transaction()
      .execute((trx) => store.insert(trx, row, updateRow(row, row.state, message, row.created_at)));
    changed();
    return (await store.findWithUpdates(row.id)) as IncidentWithUpdates;
  }

  /** Moves an open incident or window to `state` with `message`; `closes` ends it. */
  async function move(
    id: string,
    kind: IncidentRow['kind'],
    state: string,
    message: string,
    patch: Partial<IncidentRow> = {},
  ): Promise<IncidentWithUpdates> {
    const text = checkMessage(message);
    const now = Date.now();
    await db.transaction().execute(async (trx) => {
      const row = await store.find(id, trx);
      if (!row || row.kind !== kind)
        throw notFound(kind === 'incident' ? `Incident ${id}` : `Maintenance ${id}`);
      if (isClosed(row.state as IncidentState)) throw conflict(`${id} is already ${row.state}.`);
      const next = { ...row, ...patch, state };
      await store.change(
        trx,
        id,
        { ...patch, state, updated_at: now, closed_at: isClosed(state as IncidentState) ? now : null },
        updateRow(next, state, text, now),
      );
    });
    changed();
    return (await store.findWithUpdates(id)) as IncidentWithUpdates;
  }

  return {
    store,

    async open(input: OpenIncident): Promise<IncidentWithUpdates> {
      const now = Date.now();
      return openRow(
        {
          id: newId('inc', now),
          kind: 'incident',
          title: checkTitle(input.title),
          impact: checkImpact(input.impact),
          state: 'investigating',
          components: JSON.stringify(checkComponents(input.components)),
          origin: 'operator',
          auto_component: null,
          starts_at: null,
          ends_at: null,
          created_at: now,
          updated_at: now,
          closed_at: null,
        },
        checkMessage(input.message),
      );
    },

    async update(id: string, state: string, message: string): Promise<IncidentWithUpdates> {
      if (!(OPEN_INCIDENT_STATES as readonly string[]).includes(state))
        throw badRequest(`state: must be one of ${OPEN_INCIDENT_STATES.join(', ')} (resolve closes it).`);
      return move(id, 'incident', state, message);
    },

    /** Raises or lowers an open incident's impact, with an update saying so. */
    async changeImpact(id: string, impact: Impact, message: string): Promise<IncidentWithUpdates> {
      const row = await store.find(id);
      if (row?.kind !== 'incident') throw notFound(`Incident ${id}`);
      return move(id, 'incident', row.state, message, { impact: checkImpact(impact) });
    },

    async resolve(id: string, message: string): Promise<IncidentWithUpdates> {
      return move(id, 'incident', 'resolved', message);
    },

    async scheduleMaintenance(input: ScheduleMaintenance): Promise<IncidentWithUpdates> {
      const now = Date.now();
      if (!Number.isFinite(input.startsAt) || !Number.isFinite(input.endsAt))
        throw badRequest('starts/ends: must be ISO 8601 date-times.');
      if (input.endsAt <= input.startsAt) throw badRequest('ends: must be after starts.');
      if (input.endsAt <= now) throw badRequest('ends: must be in the future.');
      return openRow(
        {
          id: newId('inc', now),
          kind: 'maintenance',
          title: checkTitle(input.title),
          impact: 'maintenance',
          state: input.startsAt <= now ? 'in_progress' : 'scheduled',
          components: JSON.stringify(checkComponents(input.components)),
          origin: 'operator',
          auto_component: null,
          starts_at: input.startsAt,
          ends_at: input.endsAt,
          created_at: now,
          updated_at: now,
          closed_at: null,
        },
        checkMessage(input.message),
      );
    },

    async updateMaintenance(id: string, message: string): Promise<IncidentWithUpdates> {
      const row = await store.find(id);
      if (row?.kind !== 'maintenance') throw notFound(`Maintenance ${id}`);
      return move(id, 'maintenance', row.state, message);
    },

    async completeMaintenance(id: string, message: string): Promise<IncidentWithUpdates> {
      return move(id, 'maintenance', 'completed', message);
    },

    async cancelMaintenance(id: string, message: string): Promise<IncidentWithUpdates> {
      return move(id, 'maintenance', 'cancelled', message);
    },

    /** Starts windows whose start has come and completes those whose end has; returns how many moved. */
    async advanceMaintenance(now = Date.now()): Promise<number> {
      let moved = 0;
      for (const row of await store.maintenanceDue(now)) {
        const ending = row.state === 'in_progress' || (row.ends_at ?? 0) <= now;
        try {
          await move(
            row.id,
            'maintenance',
            ending ? 'completed' : 'in_progress',
            ending ? 'The maintenance is complete.' : 'The maintenance has started.',
          );
          moved++;
        } catch (error) {
          // Completed or cancelled from the command line meanwhile: nothing left to do.
          if ((error as { status?: number }).status !== 409) throw error;
        }
      }
      return moved;
    },

    /**
     * Opens the automatic incident of `component` (at most one is open per component: a unique
     * index holds even against a second process); undefined when one is already open.
     */
    async openAutomatic(component: ComponentId, impact: Impact, title: string, message: string) {
      if (await store.openAutomatic(component)) return undefined;
      const now = Date.now();
      try {
        return await openRow(
          {
            id: newId('inc', now),
            kind: 'incident',
            title,
            impact,
            state: 'investigating',
            components: JSON.stringify([component]),
            origin: 'automatic',
            auto_component: component,
            starts_at: null,
            ends_at: null,
            created_at: now,
            updated_at: now,
            closed_at: null,
          },
          message,
        );
      } catch (error) {
        if (isUniqueViolation(error)) return undefined;
        throw error;
      }
    },

    openAutomaticOf: (component: ComponentId) => store.openAutomatic(component),

    async get(id: string): Promise<IncidentWithUpdates> {
      const found = await store.findWithUpdates(id);
      if (!found) throw notFound(`Incident ${id}`);
      return found;
    },

    /** Newest first. */
    list: (limit: number, after?: string, openOnly = false, kind?: IncidentRow['kind']) =>
      store.page(limit, after, openOnly, kind),

    /** In-process changes (the server's own); the command line's are seen through `lastSeq`. */
    onChange(listener: () => void): () => void {
      changes.on('change', listener);
      return () => changes.off('change', listener);
    },

    lastSeq: () => store.lastSeq(),
  };
}

export type IncidentService = ReturnType<typeof createIncidentService>;
