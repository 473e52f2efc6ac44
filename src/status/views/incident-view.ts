/**
 * An incident or maintenance window as the API, the feed and the page show it: ISO 8601 times,
 * its updates newest first. Who opened it is not shown, only whether Posthorn did by itself.
 */
import type { IncidentWithUpdates, UpdateRow } from '../incidents/store.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function updateView(update: UpdateRow) {
  return {
    id: update.id,
    state: update.state,
    message: update.message,
    created_at: new Date(update.created_at).toISOString(),
  };
}

export function incidentView({ incident, updates }: IncidentWithUpdates) {
  return {
    id: incident.id,
    kind: incident.kind,
    title: incident.title,
    impact: incident.impact,
    state: incident.state,
    components: JSON.parse(incident.components) as string[],
    automatic: incident.origin === 'automatic',
    ...(incident.kind === 'maintenance'
      ? { starts_at: iso(incident.starts_at), ends_at: iso(incident.ends_at) }
      : {}),
    created_at: new Date(incident.created_at).toISOString(),
    updated_at: new Date(incident.updated_at).toISOString(),
    resolved_at: iso(incident.closed_at),
    updates: updates.map(updateView),
  };
}

export type IncidentView = ReturnType<typeof incidentView>;
