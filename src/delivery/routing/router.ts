/**
 * Room `delivery/routing/`, after the queue. Where a job's mail goes: the lane whose budget it
 * draws from (lanes.ts, assigned by this router; removed-lanes.ts routes again the jobs of a lane
 * no longer configured), the MX hosts to try in order (route.ts), what a domain's MTA-STS policy
 * demands of them (mta-sts.ts), and the local addresses to send from (source-addresses.ts).
 *
 * It looks things up (DNS through the configured resolver only, an MTA-STS policy over HTTPS) but
 * must never open an SMTP connection, nor compose or send a message.
 *
 * The router gives lanes to due jobs that have none yet: a new job, or one whose lane was removed
 * from the config (removed-lanes.ts). A lane is chosen by the recipient domain's first MX host
 * (lanes.ts); test-mode jobs go to the sandbox. One MX lookup per recipient domain of a batch, one
 * write per batch, no lease: assigning a lane twice is harmless.
 */
import type { Traffic } from '../../platform/db/tables.js';
import type { DnsResolver } from '../../platform/dns/resolver.js';
import type { LaneTable } from './lanes.js';
import type { DeliveryStore } from '../queue/store.js';

/** The lane of test-mode jobs (the built-in sink, sandbox-sink.ts). */
export const SANDBOX_LANE = 'sandbox';
/** Jobs the router reads at a time. */
export const ROUTE_BATCH = 500;

export interface RouterDeps {
  readonly store: Pick<DeliveryStore, 'unrouted' | 'assignLane'>;
  readonly dns: DnsResolver;
  readonly laneTable: LaneTable;
}

/**
 * Routes one batch of due unrouted jobs of `traffic`. Returns how many it found (fewer than
 * ROUTE_BATCH: none are left) and the lanes it gave them.
 */
export async function routeBatch(
  deps: RouterDeps,
  traffic: Traffic,
): Promise<{ found: number; lanes: ReadonlySet<string> }> {
  const jobs = await deps.store.unrouted(traffic, ROUTE_BATCH, Date.now());
  if (jobs.length === 0) return { found: 0, lanes: new Set() };
  const byDomain = new Map<string, Promise<string>>();
  const laneFor = (job: (typeof jobs)[number]): Promise<string> => {
    const key = job.mode === 'test' ? '' : job.domain;
    let lane = byDomain.get(key);
    if (lane === undefined) {
      lane = job.mode === 'test' ? Promise.resolve(SANDBOX_LANE) : laneOf(deps, job.domain, traffic);
      byDomain.set(key, lane);
    }
    return lane;
  };
  const assigned = await Promise.all(jobs.map(async (job) => ({ id: job.id, lane: await laneFor(job) })));
  await deps.store.assignLane(assigned);
  return { found: jobs.length, lanes: new Set(assigned.map((a) => a.lane)) };
}

/** The lane of a recipient domain: by its first MX host; a domain without one goes to `default`. */
async function laneOf(deps: RouterDeps, domain: string, traffic: Traffic): Promise<string> {
  const answer = await deps.dns.mx(domain);
  const host = answer.status === 'found' ? answer.hosts[0]?.exchange : undefined;
  // The default lane's steps record why a domain cannot receive mail (or retry a DNS failure).
  return host === undefined ? 'default' : deps.laneTable.laneFor(host, traffic).name;
}
