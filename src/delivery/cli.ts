/**
 * `posthorn queue stats`: the delivery queue per lane, read from the store (it works whether or
 * not a server is running): jobs queued, leased (in flight), deferred at least once, and the age
 * of the oldest. Jobs not routed yet show under the lane "(new)". `--json` is shaped like the API's
 * JSON and the other commands': snake_case keys, ISO 8601 times, a list as `{"data": [...]}`.
 */
import type { Command, Group } from '../cli/command.js';
import { withAdmin } from '../cli/context.js';
import { printTable } from '../cli/output.js';
import type { LaneDepth } from './queue/store.js';

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

/**
 * One lane as `--json` prints it. The running engine's `connections` and `blocked` are left out:
 * this command reads the store and runs no engine, so they were always null here.
 */
function laneJson(lane: LaneDepth) {
  return {
    traffic: lane.traffic,
    lane: lane.lane,
    queued: lane.queued,
    in_flight: lane.inFlight,
    deferred: lane.deferred,
    oldest_created_at: lane.oldestCreatedAt === null ? null : new Date(lane.oldestCreatedAt).toISOString(),
  };
}

const statsCommand: Command = {
  kind: 'command',
  name: 'stats',
  summary: 'Per-lane depth, in flight, deferred and oldest age of the delivery queue.',
  options: { json: { type: 'boolean' } },
  help: { json: 'Print JSON.' },
  async run(values, _positionals, io) {
    const now = Date.now();
    const lanes = await withAdmin(values, ({ services }) => services.delivery.stats(now));
    if (values.json) {
      io.out(JSON.stringify({ data: lanes.map(laneJson) }, null, 2));
      return 0;
    }
    printTable(
      io,
      ['TRAFFIC', 'LANE', 'QUEUED', 'IN FLIGHT', 'DEFERRED', 'OLDEST'],
      lanes.map((lane) => [
        lane.traffic,
        lane.lane ?? '(new)',
        String(lane.queued),
        String(lane.inFlight),
        String(lane.deferred),
        lane.oldestCreatedAt === null ? '-' : age(now - lane.oldestCreatedAt),
      ]),
    );
    return 0;
  },
};

export const queueGroup: Group = {
  kind: 'group',
  name: 'queue',
  summary: 'The delivery queue.',
  children: [statsCommand],
};
