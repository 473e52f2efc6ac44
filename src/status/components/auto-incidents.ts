/**
 * Automatic incidents: a component measured below operational for `status.auto_incident_after`
 * opens one (impact: its state then; raised if it gets worse), and once it has measured
 * operational for `status.auto_resolve_after` the incident is resolved. A component under an
 * announced maintenance window opens none: the operator has already said why.
 *
 * The clock of each component lives in memory; after a restart an open automatic incident is found
 * in the store (one per component at most) and resolves as soon as recovery has lasted long enough.
 */
import type { Logger } from '../../platform/log.js';
import type { IncidentService } from '../incidents/service.js';
import type { IncidentWithUpdates } from '../incidents/store.js';
import { COMPONENT_NAMES, type ComponentId, type Impact, severity } from '../model.js';
import type { Measurement } from './measure.js';

export interface AutoPolicy {
  readonly enabled: boolean;
  readonly openAfterMs: number;
  readonly resolveAfterMs: number;
}

const STATE_WORDS: Readonly<Record<Impact, string>> = {
  degraded: 'degraded',
  partial_outage: 'partly down',
  major_outage: 'down',
};

export function createAutoIncidents(deps: {
  readonly policy: AutoPolicy;
  readonly incidents: IncidentService;
  readonly log: Logger;
}) {
  const { policy, incidents, log } = deps;
  const belowSince = new Map<ComponentId, number>();
  const okSince = new Map<ComponentId, number>();

  const underMaintenance = (id: ComponentId, open: readonly IncidentWithUpdates[]) =>
    open.some(
      ({ incident }) =>
        incident.kind === 'maintenance' &&
        incident.state === 'in_progress' &&
        (JSON.parse(incident.components) as string[]).includes(id),
    );

  const automaticOf = (id: ComponentId, open: readonly IncidentWithUpdates[]) =>
    open.find(({ incident }) => incident.auto_component === id && incident.closed_at === null)?.incident;

  async function follow(
    id: ComponentId,
    measurement: Measurement,
    open: readonly IncidentWithUpdates[],
    now: number,
  ): Promise<void> {
    const name = COMPONENT_NAMES[id];
    const current = automaticOf(id, open);
    if (measurement.state === 'operational') {
      belowSince.delete(id);
      if (!okSince.has(id)) okSince.set(id, now);
      if (current && now - (okSince.get(id) as number) >= policy.resolveAfterMs) {
        await incidents.resolve(
          current.id,
          `${name} is operating normally again. This incident was resolved automatically.`,
        );
        log.info({ incident_id: current.id, component: id }, `automatic incident ${current.id} resolved`);
      }
      return;
    }
    okSince.delete(id);
    if (!belowSince.has(id)) belowSince.set(id, now);
    const impact = measurement.state as Impact;
    if (current) {
      if (severity(impact) > severity(current.impact as Impact)) {
        await incidents.changeImpact(
          current.id,
          impact,
          `${name} is now ${STATE_WORDS[impact]}: ${measurement.reason}.`,
        );
      }
      return;
    }
    if (now - (belowSince.get(id) as number) < policy.openAfterMs || underMaintenance(id, open)) return;
    const opened = await incidents.openAutomatic(
      id,
      impact,
      `${name} ${impact === 'degraded' ? 'is degraded' : `is ${STATE_WORDS[impact]}`}`,
      `${name} has been ${STATE_WORDS[impact]} since ${new Date(belowSince.get(id) as number).toISOString()}: ${measurement.reason}. This incident was opened automatically and resolves when it recovers.`,
    );
    if (opened)
      log.warn(
        { incident_id: opened.incident.id, component: id },
        `automatic incident ${opened.incident.id} opened`,
      );
  }

  return {
    /** Follows every measured component; returns nothing, changes go through the incident service. */
    async follow(
      measurements: ReadonlyMap<ComponentId, Measurement>,
      open: readonly IncidentWithUpdates[],
      now = Date.now(),
    ): Promise<void> {
      if (!policy.enabled) return;
      for (const [id, measurement] of measurements) await follow(id, measurement, open, now);
    },
  };
}
