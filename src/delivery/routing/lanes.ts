/**
 * Provider lanes: which budget (connections, messages per connection, rate) a delivery to a given
 * MX host draws from. Big mailbox providers throttle per sending IP, each in their own way, so each
 * gets its own lane; transactional and marketing traffic have separate lane sets so that a
 * broadcast never queues in front of a password reset (DESIGN.md §5).
 *
 * Lanes are chosen by the MX host name, not the recipient domain: a company domain hosted at
 * Google has MX hosts under google.com and belongs in the gmail lane. Matching is by suffix on
 * label boundaries ("aspmx.l.google.com" is under "google.com", "evilgoogle.com" is not),
 * case-insensitive, ignoring a trailing root dot (RFC 1035 §3.1 absolute names); the longest
 * matching suffix wins, and an unmatched host goes to the `default` lane of its traffic class.
 */
import { type LaneConfig, type LaneSetting, newLaneDefaults } from '../../platform/config/schema.js';

export type TrafficClass = LaneConfig['traffic'];

type Budget = Pick<
  LaneConfig,
  'max_connections' | 'messages_per_connection' | 'rate_per_second' | 'connections_per_mx'
>;

const providers: readonly { readonly name: string; readonly mx_suffixes: readonly string[] }[] = [
  { name: 'gmail', mx_suffixes: ['google.com', 'googlemail.com'] },
  { name: 'outlook', mx_suffixes: ['outlook.com', 'protection.outlook.com', 'hotmail.com'] },
  { name: 'yahoo', mx_suffixes: ['yahoodns.net', 'yahoo.com'] },
  { name: 'icloud', mx_suffixes: ['icloud.com', 'me.com'] },
  { name: 'default', mx_suffixes: [] },
];

// Starting budgets for one IP with little history. Yahoo and iCloud defer early and hard, so
// they get fewer connections; marketing gets about half of transactional everywhere.
const budgets: Readonly<Record<TrafficClass, Readonly<Record<string, Budget>>>> = {
  transactional: {
    gmail: { max_connections: 10, messages_per_connection: 100, rate_per_second: 20, connections_per_mx: 5 },
    outlook: { max_connections: 8, messages_per_connection: 50, rate_per_second: 10, connections_per_mx: 4 },
    yahoo: { max_connections: 4, messages_per_connection: 20, rate_per_second: 5, connections_per_mx: 2 },
    icloud: { max_connections: 4, messages_per_connection: 20, rate_per_second: 5, connections_per_mx: 2 },
    default: { max_connections: 8, messages_per_connection: 50, rate_per_second: 20, connections_per_mx: 2 },
  },
  marketing: {
    gmail: { max_connections: 5, messages_per_connection: 100, rate_per_second: 10, connections_per_mx: 3 },
    outlook: { max_connections: 4, messages_per_connection: 50, rate_per_second: 5, connections_per_mx: 2 },
    yahoo: { max_connections: 2, messages_per_connection: 20, rate_per_second: 2, connections_per_mx: 1 },
    icloud: { max_connections: 2, messages_per_connection: 20, rate_per_second: 2, connections_per_mx: 1 },
    default: { max_connections: 4, messages_per_connection: 50, rate_per_second: 10, connections_per_mx: 2 },
  },
};

/** The built-in lanes of both traffic classes, each class ending with its `default` lane. */
export const builtInLanes: readonly LaneConfig[] = Object.freeze(
  (['transactional', 'marketing'] as const).flatMap((traffic) =>
    providers.map((provider): LaneConfig => {
      const budget = budgets[traffic][provider.name];
      if (budget === undefined) throw new Error(`no built-in budget for lane ${provider.name}`);
      return Object.freeze({
        name: provider.name,
        traffic,
        mx_suffixes: [...provider.mx_suffixes],
        ...budget,
        tls: '',
      });
    }),
  ),
);

/**
 * The built-in lanes with `delivery.lanes` laid over them. A configured lane with the name and
 * traffic class of a built-in one changes only the keys it sets: `[[delivery.lanes]] name = "yahoo"
 * rate_per_second = 2` slows Yahoo down and keeps its connection limits (and, with no MX suffixes
 * listed, its suffixes). A new name adds a lane, which takes `newLaneDefaults` for the keys it
 * leaves out. Two configured lanes with the same name and class are a config error.
 */
export function mergeLanes(configured: readonly LaneSetting[]): readonly LaneConfig[] {
  const merged = new Map(builtInLanes.map((lane) => [laneKey(lane), lane]));
  const seen = new Set<string>();
  for (const lane of configured) {
    const key = laneKey(lane);
    if (seen.has(key))
      throw new Error(`delivery.lanes: lane "${lane.name}" appears twice for ${lane.traffic} traffic`);
    seen.add(key);
    const base = merged.get(key);
    merged.set(key, {
      name: lane.name,
      traffic: lane.traffic,
      mx_suffixes: lane.mx_suffixes.length === 0 && base ? base.mx_suffixes : lane.mx_suffixes,
      max_connections: lane.max_connections ?? base?.max_connections ?? newLaneDefaults.max_connections,
      messages_per_connection:
        lane.messages_per_connection ??
        base?.messages_per_connection ??
        newLaneDefaults.messages_per_connection,
      rate_per_second: lane.rate_per_second ?? base?.rate_per_second ?? newLaneDefaults.rate_per_second,
      connections_per_mx:
        lane.connections_per_mx ?? base?.connections_per_mx ?? newLaneDefaults.connections_per_mx,
      tls: lane.tls ?? base?.tls ?? newLaneDefaults.tls,
    });
  }
  return [...merged.values()];
}

/** Picks the lane of an MX host; built once from config at boot. */
export interface LaneTable {
  /** Every lane of the traffic class, `default` included. */
  lanes(traffic: TrafficClass): readonly LaneConfig[];
  /**
   * The lane for a delivery to `mxHost`.
   *
   * @example table.laneFor('gmail-smtp-in.l.google.com.', 'transactional').name // 'gmail'
   */
  laneFor(mxHost: string, traffic: TrafficClass): LaneConfig;
}

/** Builds the lane table from `config.delivery.lanes`. */
export function createLaneTable(configured: readonly LaneSetting[] = []): LaneTable {
  const all = mergeLanes(configured);
  const byTraffic = (traffic: TrafficClass) => all.filter((lane) => lane.traffic === traffic);
  const classes = { transactional: byTraffic('transactional'), marketing: byTraffic('marketing') };
  return {
    lanes: (traffic) => classes[traffic],
    laneFor(mxHost, traffic) {
      const host = normalizeHost(mxHost);
      let best: { lane: LaneConfig; length: number } | null = null;
      for (const lane of classes[traffic]) {
        for (const raw of lane.mx_suffixes) {
          const suffix = normalizeHost(raw);
          if (suffix === '' || (best !== null && suffix.length <= best.length)) continue;
          if (host === suffix || host.endsWith(`.${suffix}`)) best = { lane, length: suffix.length };
        }
      }
      return best?.lane ?? defaultLane(classes[traffic], traffic);
    },
  };
}

function defaultLane(lanes: readonly LaneConfig[], traffic: TrafficClass): LaneConfig {
  const lane = lanes.find((candidate) => candidate.name === 'default');
  // mergeLanes can replace the built-in default but never remove it.
  if (lane === undefined) throw new Error(`no default lane for ${traffic} traffic`);
  return lane;
}

function normalizeHost(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, '').replace(/^\.+/, '');
}

function laneKey(lane: Pick<LaneSetting, 'name' | 'traffic'>): string {
  return `${lane.traffic}/${lane.name}`;
}
