/**
 * The vocabulary of the status area (DESIGN.md §4b): the components Posthorn reports on, the
 * states a component can be in, and the states of incidents and maintenance windows. States are
 * ordered by severity so that "the worst of" is a comparison.
 */

export const COMPONENTS = ['api', 'database', 'delivery', 'inbound', 'webhooks'] as const;
export type ComponentId = (typeof COMPONENTS)[number];

export const COMPONENT_NAMES: Readonly<Record<ComponentId, string>> = {
  api: 'HTTP API',
  database: 'Database',
  delivery: 'Outgoing delivery',
  inbound: 'Inbound SMTP',
  webhooks: 'Webhooks',
};

export const COMPONENT_STATES = ['operational', 'degraded', 'partial_outage', 'major_outage'] as const;
export type ComponentState = (typeof COMPONENT_STATES)[number];

/** What an incident says it does to its components: any state below operational. */
export const IMPACTS = ['degraded', 'partial_outage', 'major_outage'] as const;
export type Impact = (typeof IMPACTS)[number];

export const INCIDENT_STATES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type IncidentState = (typeof INCIDENT_STATES)[number];
/** The states an operator may move an open incident to with `incidents update`. */
export const OPEN_INCIDENT_STATES = ['investigating', 'identified', 'monitoring'] as const;

export const MAINTENANCE_STATES = ['scheduled', 'in_progress', 'completed', 'cancelled'] as const;
export type MaintenanceState = (typeof MAINTENANCE_STATES)[number];

export type IncidentKind = 'incident' | 'maintenance';
/** An incident's or a maintenance window's state, as stored and shown. */
export type AnyIncidentState = IncidentState | MaintenanceState;

const RANK: Readonly<Record<ComponentState, number>> = {
  operational: 0,
  degraded: 1,
  partial_outage: 2,
  major_outage: 3,
};

/** The more severe of two states. @example worse('degraded', 'major_outage') // 'major_outage' */
export function worse(a: ComponentState, b: ComponentState): ComponentState {
  return RANK[b] > RANK[a] ? b : a;
}

export function worst(states: Iterable<ComponentState>): ComponentState {
  let result: ComponentState = 'operational';
  for (const state of states) result = worse(result, state);
  return result;
}

export function severity(state: ComponentState): number {
  return RANK[state];
}

/** True for states after which nothing more happens to an incident or a maintenance window. */
export function isClosed(state: AnyIncidentState): boolean {
  return state === 'resolved' || state === 'completed' || state === 'cancelled';
}

export function isComponent(value: string): value is ComponentId {
  return (COMPONENTS as readonly string[]).includes(value);
}
