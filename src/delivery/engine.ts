/**
 * The delivery engine: claims due jobs in batches and runs each through its steps in its lane.
 *
 * - Jobs that have no lane yet are read (not leased) by the router, which resolves each recipient
 *   domain's MX once (cached), picks the lane by MX host suffix and writes it on the jobs; from
 *   then on only that lane claims them, when it has room.
 * - Each lane claims only its own jobs and holds at most `highWater` of them in memory, so memory
 *   stays flat whatever the queue's depth, and a stalled provider fills only its own lane.
 * - Transactional and marketing traffic have separate lanes (and budgets) and separate routers.
 * - A send wakes the engine at once (the event log's notification); otherwise it polls.
 * - Leases of jobs held in memory are renewed (held-jobs.ts); a crash lets them expire and the
 *   jobs come back.
 * - At start, jobs of lanes no longer configured go back to the router (removed-lanes.ts).
 * - Stopping: no new claims and no new transactions; jobs not yet on the wire go back to the queue;
 *   transactions in flight get `drain_timeout` to finish, then their connections are dropped
 *   before their jobs are released, so no late reply is read for a released job and no socket
 *   keeps the process alive. Outcomes already known are written, never released; so are those of
 *   a job's transactions that ended before a later one was cut off or not started (its other
 *   recipients go back to the queue with the job).
 */
import type { Traffic } from '../platform/db/tables.js';
import type { Logger } from '../platform/log.js';
import type { DnsResolver } from '../platform/dns/resolver.js';
import type { Lane } from './smtp/lane.js';
import type { LaneTable } from './routing/lanes.js';
import { cutOff, HeldJobs } from './held-jobs.js';
import { type CutOff, type Outcome, type PerRecipient, RELEASED } from './replies/outcome.js';
import type { OutcomeWriter } from './outcomes/outcome-writer.js';
import { rerouteRemovedLanes } from './routing/removed-lanes.js';
import { ROUTE_BATCH, routeBatch, SANDBOX_LANE } from './routing/router.js';
import { deliverJob, type JobContext, newContext, type StepDeps } from './steps.js';
import type { ClaimedJob, DeliveryStore } from './queue/store.js';
import type { MarketingPace } from './marketing-pace.js';
import type { BulkActivity } from '../platform/bulk-activity.js';

export interface EngineOptions {
  readonly store: Pick<
    DeliveryStore,
    'claim' | 'release' | 'renew' | 'assignLane' | 'unrouted' | 'queuedLanes' | 'unassignLane'
  >;
  readonly dns: DnsResolver;
  readonly laneTable: LaneTable;
  /** Lanes by `${traffic}/${name}`. */
  readonly lanes: ReadonlyMap<string, Lane>;
  readonly steps: Omit<StepDeps, 'stopping'>;
  readonly writer: OutcomeWriter;
  readonly log: Logger;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly claimBatch: number;
  readonly drainMs: number;
  /** Subscribes to "something was queued"; returns the unsubscribe function. */
  readonly onWake?: (wake: () => void) => () => void;
  /** Bounds the marketing jobs held at once by the event loop's delay (marketing-pace.ts). */
  readonly pace?: Pick<MarketingPace, 'room' | 'stop'>;
  /** Told at each claim pass while marketing jobs are held: background views wait (platform/bulk-activity.ts). */
  readonly bulk?: Pick<BulkActivity, 'mark'>;
}

const TRAFFIC: readonly Traffic[] = ['transactional', 'marketing'];
const SANDBOX_HIGH_WATER = 256;

export class DeliveryEngine {
  readonly #o: EngineOptions;
  readonly #held: HeldJobs;
  readonly #sandboxHeld: Record<Traffic, number> = { transactional: 0, marketing: 0 };
  /** Claim sources (`traffic/lane`, router: `traffic/`) known to have nothing due. */
  readonly #drained = new Set<string>();
  /** Traffic classes whose router is running (it never blocks the claims: DNS may be slow). */
  readonly #routing = new Set<Traffic>();
  /** The claims of each traffic class in progress, one after another (`#serially`). */
  readonly #claiming: Record<Traffic, Promise<void>> = {
    transactional: Promise.resolve(),
    marketing: Promise.resolve(),
  };
  #stopping = false;
  #ticking = false;
  /** The claim pass running or about to run (stop() lets it finish: the jobs it claims are held). */
  #pass: Promise<void> = Promise.resolve();
  #again = false;
  #poll: NodeJS.Timeout | undefined;
  #renew: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #rerouting: Promise<void> = Promise.resolve();
  /** The last error of the claim loop, for the health probe; cleared by a good pass. */
  lastError: string | null = null;
  /** When the claim loop last completed a pass. */
  lastPassAt = 0;

  constructor(options: EngineOptions) {
    this.#o = options;
    this.#held = new HeldJobs(options.store, options.leaseMs, options.log);
  }

  start(): void {
    this.#poll = setInterval(() => {
      this.#drained.clear();
      this.wake();
    }, this.#o.pollMs);
    this.#renew = setInterval(
      () => void this.#held.renewLeases(),
      Math.max(1000, Math.floor(this.#o.leaseMs / 3)),
    );
    this.#unsubscribe = this.#o.onWake?.(() => {
      // Something was queued: only the routers can have new work.
      for (const traffic of TRAFFIC) this.#drained.delete(`${traffic}/`);
      this.wake();
    });
    this.#rerouting = rerouteRemovedLanes({
      store: this.#o.store,
      log: this.#o.log,
      configured: (traffic) => [...this.#o.laneTable.lanes(traffic).map((lane) => lane.name), SANDBOX_LANE],
      stopping: () => this.#stopping,
    }).then((moved) => {
      if (moved > 0) for (const traffic of TRAFFIC) this.#drained.delete(`${traffic}/`);
      this.wake();
    });
    this.wake();
  }

  /** Jobs held in memory right now. */
  get held(): number {
    return this.#held.size;
  }

  get running(): boolean {
    return this.#poll !== undefined && !this.#stopping;
  }

  /** Looks for due jobs now (coalesced: one pass at a time, one more if asked meanwhile). */
  wake(): void {
    if (this.#stopping) return;
    if (this.#ticking) {
      this.#again = true;
      return;
    }
    this.#ticking = true;
    this.#pass = new Promise((resolve) => setImmediate(() => void this.#tick().then(resolve)));
  }

  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    clearInterval(this.#poll);
    clearInterval(this.#renew);
    this.#o.pace?.stop();
    this.#unsubscribe?.();
    for (const lane of this.#o.lanes.values()) lane.close();
    await this.#pass;
    await Promise.all(TRAFFIC.map((traffic) => this.#claiming[traffic]));
    await this.#held.untilIdle(this.#o.drainMs);
    // Transactions still in flight are cut off before their jobs are released: no reply can then
    // arrive for a job that is back in the queue (the server may have kept the message: at least once).
    for (const lane of this.#o.lanes.values()) lane.abort();
    const cut = await this.#held.releaseAbandoned();
    // Results already in hand are written before the store can close.
    await Promise.all([
      this.#held.untilIdle(),
      this.#rerouting,
      ...cut.map(({ ctx, result }) => this.#recordCutOff(ctx, result)),
    ]);
  }

  async #tick(): Promise<void> {
    try {
      if (this.#o.bulk && this.#marketingHeld() > 0) this.#o.bulk.mark();
      for (const traffic of TRAFFIC) {
        await this.#serially(traffic, () => this.#claimLanes(traffic));
        this.#startRouting(traffic);
      }
      await this.#flushReleases();
      this.lastError = null;
      this.lastPassAt = Date.now();
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      this.#o.log.error({ err: error }, 'delivery claim pass failed');
    } finally {
      this.#ticking = false;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    }
  }

  /** Claims for each lane of `traffic` and its sandbox lane what they have room for. */
  async #claimLanes(traffic: Traffic): Promise<void> {
    for (const lane of this.#o.laneTable.lanes(traffic)) {
      const live = this.#o.lanes.get(`${traffic}/${lane.name}`);
      if (!live) continue;
      // Marketing takes what the event loop can spare beside transactional mail.
      const room =
        traffic === 'marketing' && this.#o.pace
          ? Math.min(live.room, this.#o.pace.room(this.#marketingHeld()))
          : live.room;
      // Claim in batches: when a quarter of the lane is free, or at once when it is idle.
      const batch =
        live.held === 0 ? 1 : Math.max(1, Math.floor(Math.min(live.highWater, room + live.held) / 4));
      if (room >= batch) await this.#claimFor(traffic, live.name, room, (job) => this.#run(job, live));
    }
    await this.#claimFor(traffic, SANDBOX_LANE, SANDBOX_HIGH_WATER - this.#sandboxHeld[traffic], (job) =>
      this.#run(job, null),
    );
  }

  /**
   * Runs `claims` after any other claims of the same traffic still running: the pass's, and the
   * claim of transactional jobs just routed (`#startRouting`), which does not wait for the pass's
   * marketing claims. One at a time, each lane's room is read after the previous claim took its jobs.
   */
  #serially(traffic: Traffic, claims: () => Promise<void>): Promise<void> {
    const next = this.#claiming[traffic].then(claims);
    this.#claiming[traffic] = next.catch(() => undefined);
    return next;
  }

  /**
   * Claims up to `room` jobs for one lane (null: the router). A claim that comes back short means
   * the lane has nothing more due; it is not asked again until something may have added jobs to
   * it (a send, a job released to it, or the poll, which also catches retries and lapsed leases).
   */
  async #claimFor(traffic: Traffic, lane: string | null, room: number, start: (job: ClaimedJob) => void) {
    const key = `${traffic}/${lane ?? ''}`;
    if (this.#stopping || room <= 0 || this.#drained.has(key)) return;
    const limit = Math.min(room, this.#o.claimBatch);
    const jobs = await this.#o.store.claim(traffic, lane, limit, Date.now(), this.#o.leaseMs);
    if (jobs.length < limit) this.#drained.add(key);
    for (const job of jobs) {
      // A lease that ran out while the job was still being worked on: it is already in hand, and
      // keeps the new claim's token (its renewals and outcome must name it).
      if (this.#held.has(job.id)) this.#held.relet(job);
      else start(job);
    }
  }

  /**
   * Gives lanes to due jobs that have none (router.ts), beside the claims, so a slow DNS answer
   * delays routing only; batches follow each other until none is left.
   */
  #startRouting(traffic: Traffic): void {
    const key = `${traffic}/`;
    if (this.#stopping || this.#routing.has(traffic) || this.#drained.has(key)) return;
    this.#routing.add(traffic);
    routeBatch(this.#o, traffic)
      .then(({ found, lanes }) => {
        if (found < ROUTE_BATCH) this.#drained.add(key);
        for (const lane of lanes) this.#drained.delete(`${traffic}/${lane}`);
      })
      .catch((error: unknown) => {
        this.lastError = error instanceof Error ? error.message : String(error);
        this.#o.log.error({ err: error }, 'routing jobs to lanes failed');
      })
      .then(() => {
        // A password reset just routed is claimed now, not after the pass in progress (its
        // marketing claims: under a broadcast, one more turn of a busy loop).
        if (traffic !== 'transactional' || this.#stopping) return;
        return this.#serially(traffic, () => this.#claimLanes(traffic)).catch((error: unknown) => {
          this.lastError = error instanceof Error ? error.message : String(error);
          this.#o.log.error({ err: error }, 'delivery claim failed');
        });
      })
      .finally(() => {
        this.#routing.delete(traffic);
        this.wake();
      });
  }

  /** Marketing jobs held in the marketing lanes. */
  #marketingHeld(): number {
    let held = 0;
    for (const lane of this.#o.laneTable.lanes('marketing'))
      held += this.#o.lanes.get(`marketing/${lane.name}`)?.held ?? 0;
    return held;
  }

  /** Runs one job's steps in `lane` (null: the sandbox) and records the outcome. */
  #run(job: ClaimedJob, lane: Lane | null): void {
    const ctx = newContext(job, lane);
    this.#held.add(ctx);
    if (lane) lane.held += 1;
    else this.#sandboxHeld[job.traffic] += 1;
    void deliverJob(ctx, { ...this.#o.steps, stopping: () => this.#stopping })
      .then(async (result) => {
        if (!this.#held.has(job.id)) return; // abandoned at shutdown: already released
        this.#held.settle(job.id);
        const reachedServer = ctx.via !== null && ctx.via.mxHost !== null;
        if (result === RELEASED || (this.#stopping && !reachedServer)) {
          if (ctx.answered.size > 0) return await this.#recordCutOff(ctx, cutOff(ctx));
          this.#held.queueRelease({
            id: job.id,
            lease: job.lease,
            lane: lane?.name ?? SANDBOX_LANE,
            traffic: job.traffic,
          });
          if (this.#stopping) await this.#flushReleases();
          return;
        }
        if (result.kind === 'released') return;
        if (lane) flagReputation(lane, result);
        await this.#o.writer.record({
          ctx,
          result,
          lane: lane?.name ?? SANDBOX_LANE,
          startedAt: ctx.startedAt,
        });
      })
      .catch((error: unknown) => {
        // Neither the outcome nor the job's deferral could be written (the database refuses writes,
        // and so the claims too): the lease runs out and the job is tried again; nothing is lost.
        this.#o.log.error({ err: error, job_id: job.id }, 'a delivery outcome could not be recorded');
      })
      .finally(() => {
        // While stopping, the last job to finish lets stop() go on (HeldJobs.untilIdle).
        this.#held.delete(job.id);
        if (lane) lane.held -= 1;
        else this.#sandboxHeld[job.traffic] -= 1;
        if (!this.#stopping) this.wake();
      });
  }

  /**
   * Records the recipients a stopped job's ended transactions answered and gives the job back
   * (outcome-recorder.ts); a failure leaves the job leased until its lease runs out.
   */
  async #recordCutOff(ctx: JobContext, result: CutOff): Promise<void> {
    const lane = ctx.lane?.name ?? SANDBOX_LANE;
    try {
      await this.#o.writer.record({ ctx, result, lane, startedAt: ctx.startedAt });
    } catch (error) {
      this.#o.log.error(
        { err: error, job_id: ctx.job.id },
        'the outcomes of a stopped job could not be recorded',
      );
    }
  }

  /** Gives back the jobs steps released; their lanes may have work again. */
  async #flushReleases(): Promise<void> {
    for (const job of await this.#held.flushReleases())
      this.#drained.delete(`${job.traffic}/${job.lane ?? ''}`);
  }
}

/** A provider's reputation block (our IP or domain is refused) is shown on the lane. */
function flagReputation(lane: Lane, result: Outcome | PerRecipient): void {
  const outcomes = result.kind === 'per_recipient' ? [...result.outcomes.values()] : [result];
  for (const outcome of outcomes) {
    if (
      (outcome.kind === 'bounced' || outcome.kind === 'deferred') &&
      outcome.class.category === 'spam_block'
    ) {
      lane.blocked = { at: Date.now(), reply: `${outcome.reply.code} ${outcome.reply.text}` };
    }
  }
}
