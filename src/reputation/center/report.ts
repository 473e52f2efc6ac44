/**
 * The reputation center's figures from the hourly rows: for each sending domain and each lane,
 * windows of the last 1, 7 and 30 days (24, 168 and 720 hours up to the current one) with their
 * rates and states, the entity's state and why, and the lanes a provider blocked or rate-limited.
 * Pure: the rows come from the store.
 */
import type { ReputationHourlyTable } from '../../platform/db/tables.js';
import { COUNT_NAMES, type Counts, zeroCounts } from './outcomes.js';
import {
  entityState,
  type State,
  type Thresholds,
  type WindowReport,
  windowReport,
  worst,
} from './states.js';

export const WINDOW_DAYS = [1, 7, 30] as const;
const HOUR = 3_600_000;

export interface LastBlock {
  readonly at: string;
  readonly category: string;
  readonly smtp_response: string;
  readonly mx_host: string | null;
}

export interface EntityReport {
  readonly name: string;
  readonly state: State;
  readonly reasons: string[];
  readonly windows: WindowReport[];
  readonly last_block: LastBlock | null;
}

export interface CenterFigures {
  readonly state: State;
  readonly domains: EntityReport[];
  readonly lanes: EntityReport[];
  readonly blocked_lanes: Array<{
    readonly lane: string;
    readonly blocked_1d: number;
    readonly blocked_7d: number;
    readonly last_block: LastBlock;
  }>;
}

interface Accumulator {
  readonly windows: Counts[];
  last: ReputationHourlyTable | null;
}

/** The first hour of each window when the current hour is `hour`. */
export const firstHours = (hour: number) => WINDOW_DAYS.map((days) => hour - days * 24 + 1);

function entity(name: string, acc: Accumulator, thresholds: Thresholds, hour: number): EntityReport {
  const windows = WINDOW_DAYS.map((days, i) =>
    windowReport(days, acc.windows[i] ?? zeroCounts(), thresholds),
  );
  const blockedToday = (windows[0]?.blocked ?? 0) > 0;
  const reasons = windows.filter((w) => !w.low_volume).flatMap((w) => w.reasons);
  if (blockedToday)
    reasons.push(
      `a provider answered with a reputation block or rate limit in the last day (${windows[0]?.blocked})`,
    );
  const last = acc.last;
  return {
    name,
    state: entityState(windows, blockedToday),
    reasons,
    windows,
    last_block:
      last?.last_block_at != null && last.hour >= hour - 30 * 24 + 1
        ? {
            at: new Date(last.last_block_at).toISOString(),
            category: last.last_block_category ?? '',
            smtp_response: last.last_block_response ?? '',
            mx_host: last.last_block_mx,
          }
        : null,
  };
}

const byVolume = (a: EntityReport, b: EntityReport) =>
  (b.windows[2]?.delivered ?? 0) +
    (b.windows[2]?.bounced ?? 0) -
    ((a.windows[2]?.delivered ?? 0) + (a.windows[2]?.bounced ?? 0)) || a.name.localeCompare(b.name);

/** @example centerFigures(await store.window(projectId, firstHours(hour)[2]), thresholds, Date.now()) */
export function centerFigures(
  rows: readonly ReputationHourlyTable[],
  thresholds: Thresholds,
  now: number,
): CenterFigures {
  const hour = Math.floor(now / HOUR);
  const starts = firstHours(hour);
  const groups = { domain: new Map<string, Accumulator>(), lane: new Map<string, Accumulator>() };
  for (const row of rows) {
    const map = groups[row.kind];
    let acc = map.get(row.name);
    if (!acc) {
      acc = { windows: WINDOW_DAYS.map(() => zeroCounts()), last: null };
      map.set(row.name, acc);
    }
    starts.forEach((start, i) => {
      if (row.hour < start || row.hour > hour) return;
      const counts = acc.windows[i] as Counts;
      for (const name of COUNT_NAMES) counts[name] += row[name];
    });
    if (row.last_block_at !== null && (acc.last?.last_block_at ?? -1) < row.last_block_at) acc.last = row;
  }
  const build = (map: Map<string, Accumulator>) =>
    [...map].map(([name, acc]) => entity(name, acc, thresholds, hour)).sort(byVolume);
  const domains = build(groups.domain);
  const lanes = build(groups.lane);
  const blocked_lanes = lanes.flatMap((lane) =>
    (lane.windows[1]?.blocked ?? 0) > 0 && lane.last_block
      ? [
          {
            lane: lane.name,
            blocked_1d: lane.windows[0]?.blocked ?? 0,
            blocked_7d: lane.windows[1]?.blocked ?? 0,
            last_block: lane.last_block,
          },
        ]
      : [],
  );
  return { state: worst([...domains, ...lanes].map((e) => e.state)), domains, lanes, blocked_lanes };
}
