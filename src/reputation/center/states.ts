/**
 * Rates, thresholds and states of the reputation center. A window's bounce rate is hard bounces
 * over delivered plus bounced (what the address list's quality decides; blocks are reported
 * apart), its complaint rate complaints over delivered, as Gmail's Postmaster Tools computes it.
 * A window with fewer outcomes than `min_volume` is marked `low_volume` and does not decide the
 * state: two bounces out of three sends say little. A lane a provider blocked or rate-limited in
 * the last day is at least `warning`.
 */
import type { Config } from '../../platform/config/schema.js';
import type { Counts } from './outcomes.js';

export type State = 'healthy' | 'warning' | 'at_risk';
export const STATES: readonly State[] = ['healthy', 'warning', 'at_risk'];

export type Thresholds = Pick<
  Config['reputation'],
  | 'bounce_rate_warning'
  | 'bounce_rate_at_risk'
  | 'complaint_rate_warning'
  | 'complaint_rate_at_risk'
  | 'min_volume'
>;

export interface WindowReport extends Counts {
  readonly days: number;
  readonly bounce_rate: number;
  readonly complaint_rate: number;
  readonly low_volume: boolean;
  readonly state: State;
  readonly reasons: string[];
}

export const worst = (states: readonly State[]): State =>
  states.reduce<State>((a, b) => (STATES.indexOf(b) > STATES.indexOf(a) ? b : a), 'healthy');

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : 0);
const percent = (rate: number) => `${(rate * 100).toFixed(2).replace(/\.?0+$/, '')} %`;

export function windowReport(days: number, counts: Counts, thresholds: Thresholds): WindowReport {
  const outcomes = counts.delivered + counts.bounced;
  const bounceRate = ratio(counts.hard_bounced, outcomes);
  const complaintRate = ratio(counts.complained, counts.delivered);
  const reasons: string[] = [];
  const states: State[] = [];
  const over = (rate: number, name: string, warning: number, atRisk: number, note: string) => {
    if (rate >= atRisk) {
      states.push('at_risk');
      reasons.push(`${name} ${percent(rate)} over ${days} d is at or above ${percent(atRisk)}${note}`);
    } else if (rate >= warning) {
      states.push('warning');
      reasons.push(`${name} ${percent(rate)} over ${days} d is at or above ${percent(warning)}`);
    }
  };
  over(bounceRate, 'bounce rate', thresholds.bounce_rate_warning, thresholds.bounce_rate_at_risk, '');
  over(
    complaintRate,
    'complaint rate',
    thresholds.complaint_rate_warning,
    thresholds.complaint_rate_at_risk,
    ' (Gmail and Yahoo require less than 0.3 %)',
  );
  return {
    days,
    ...counts,
    bounce_rate: bounceRate,
    complaint_rate: complaintRate,
    low_volume: outcomes < thresholds.min_volume,
    state: worst(states),
    reasons,
  };
}

/** The state of a domain or lane: the worst of its windows with enough volume. */
export function entityState(windows: readonly WindowReport[], blockedToday: boolean): State {
  const counted = worst(windows.filter((w) => !w.low_volume).map((w) => w.state));
  return blockedToday ? worst([counted, 'warning']) : counted;
}
