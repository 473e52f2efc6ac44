/**
 * The last 90 days of a component, one entry per UTC day: the worst impact of the incidents that
 * named it and were open at some time that day (maintenance windows are planned, not counted).
 */
import type { IncidentWithUpdates } from '../incidents/store.js';
import { type ComponentId, type ComponentState, IMPACTS, worse } from '../model.js';

export const DAYS_SHOWN = 90;
const DAY_MS = 86_400_000;

export interface DayState {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string;
  readonly state: ComponentState;
}

export function lastDays(
  component: ComponentId,
  incidents: readonly IncidentWithUpdates[],
  now: number,
): DayState[] {
  const today = Math.floor(now / DAY_MS);
  const first = today - DAYS_SHOWN + 1;
  const states: ComponentState[] = new Array(DAYS_SHOWN).fill('operational');
  for (const { incident } of incidents) {
    if (incident.kind !== 'incident' || !(IMPACTS as readonly string[]).includes(incident.impact)) continue;
    if (!(JSON.parse(incident.components) as string[]).includes(component)) continue;
    const from = Math.max(first, Math.floor(incident.created_at / DAY_MS));
    const to = Math.min(today, Math.floor((incident.closed_at ?? now) / DAY_MS));
    for (let day = from; day <= to; day++) {
      states[day - first] = worse(states[day - first] as ComponentState, incident.impact as ComponentState);
    }
  }
  return states.map((state, i) => ({
    day: new Date((first + i) * DAY_MS).toISOString().slice(0, 10),
    state,
  }));
}
