/**
 * The body of `GET /v1/status`: the overall state, each component, the open incidents, the
 * maintenance windows not over yet, and one page of the incident history (newest first, paged
 * with `limit` and `after` as every list of the API).
 */
import type { IncidentWithUpdates } from '../incidents/store.js';
import { type ComponentId, type ComponentState, isClosed } from '../model.js';
import { incidentView } from './incident-view.js';

export interface ComponentView {
  readonly id: ComponentId;
  readonly name: string;
  readonly status: ComponentState;
  /** Since when it has been in this state. */
  readonly updated_at: string;
  /** A maintenance window naming it is in progress. */
  readonly under_maintenance: boolean;
}

export interface StatusBodyInput {
  readonly overall: ComponentState;
  readonly summary: string;
  readonly updatedAt: number;
  readonly components: readonly ComponentView[];
  /** Every open incident and maintenance window. */
  readonly open: readonly IncidentWithUpdates[];
  readonly page: readonly IncidentWithUpdates[];
  readonly hasMore: boolean;
}

export function statusBody(input: StatusBodyInput) {
  return {
    status: input.overall,
    summary: input.summary,
    updated_at: new Date(input.updatedAt).toISOString(),
    components: input.components,
    incidents: input.open.filter((i) => i.incident.kind === 'incident').map(incidentView),
    maintenance: input.open
      .filter((i) => i.incident.kind === 'maintenance' && !isClosed(i.incident.state as 'scheduled'))
      .map(incidentView),
    history: { data: input.page.map(incidentView), has_more: input.hasMore },
  };
}
