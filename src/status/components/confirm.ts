/**
 * Confirms what the measurements say before it is shown or acted on: a component is shown below
 * operational only once two consecutive measurements agree, at the milder of the two states; a
 * measurement of recovery is shown at once. One probe over its timeout on a busy host (a database
 * answer late at boot) is noise, not an outage: it neither turns the page red nor opens an
 * automatic incident. A lasting outage shows one check interval later.
 */
import { type ComponentId, severity } from '../model.js';
import type { Measurement, Measurements } from './measure.js';

const UNCONFIRMED: Measurement = { state: 'operational', reason: 'operating normally' };

export function createConfirmer() {
  let previous: Measurements = new Map();
  return {
    /** The confirmed measurements, from this raw measurement and the one before it. */
    confirm(raw: Measurements): Map<ComponentId, Measurement> {
      const out = new Map<ComponentId, Measurement>();
      for (const [id, now] of raw) {
        const before = previous.get(id);
        if (now.state === 'operational') out.set(id, now);
        else if (before === undefined || before.state === 'operational') out.set(id, UNCONFIRMED);
        else out.set(id, severity(before.state) < severity(now.state) ? before : now);
      }
      previous = raw;
      return out;
    },
  };
}
