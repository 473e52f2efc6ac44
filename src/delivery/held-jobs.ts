/**
 * The jobs the delivery engine holds in memory: claimed (leased) and not yet recorded or given
 * back. It renews their leases while they are worked on, gives back the jobs a step released
 * (in batches), and at a stop releases those whose result is not known yet.
 *
 * A job whose result is known is "settling" (being recorded or released): a stop never abandons
 * it, so an outcome already in hand is written, not released. An abandoned job some of whose
 * transactions had ended keeps what they answered: the engine records that (CutOff).
 */
import type { Traffic } from '../platform/db/tables.js';
import type { Logger } from '../platform/log.js';
import type { CutOff } from './replies/outcome.js';
import type { JobContext } from './steps.js';
import type { ClaimedJob, DeliveryStore } from './queue/store.js';

/** A job to give back to the queue, with the lane it keeps. */
export interface Released {
  readonly id: string;
  /** The token of the claim that leased it (store-rows.ts `JobLease`). */
  readonly lease: string | null;
  readonly lane: string | null;
  readonly traffic: Traffic;
}

export class HeldJobs {
  readonly #store: Pick<DeliveryStore, 'release' | 'renew'>;
  readonly #leaseMs: number;
  readonly #log: Logger;
  readonly #jobs = new Map<string, JobContext>();
  readonly #settling = new Set<string>();
  readonly #toRelease: Released[] = [];
  #idle: (() => void) | null = null;

  constructor(store: Pick<DeliveryStore, 'release' | 'renew'>, leaseMs: number, log: Logger) {
    this.#store = store;
    this.#leaseMs = leaseMs;
    this.#log = log;
  }

  get size(): number {
    return this.#jobs.size;
  }

  has(id: string): boolean {
    return this.#jobs.has(id);
  }

  add(ctx: JobContext): void {
    this.#jobs.set(ctx.job.id, ctx);
  }

  /** The job was claimed again while held (its lease had run out): it holds the new claim's token. */
  relet(job: ClaimedJob): void {
    const ctx = this.#jobs.get(job.id);
    if (ctx) ctx.job = { ...ctx.job, lease: job.lease };
  }

  /** The job's result is known and being written: a stop no longer abandons it. */
  settle(id: string): void {
    this.#settling.add(id);
  }

  /** The job is over (recorded, released, or abandoned at a stop). */
  delete(id: string): void {
    this.#jobs.delete(id);
    this.#settling.delete(id);
    if (this.#jobs.size === 0) this.#idle?.();
  }

  /** Gives the job back at the next `flushReleases`. */
  queueRelease(job: Released): void {
    this.#toRelease.push(job);
  }

  /** Gives back the jobs queued for release, due now; returns them. */
  async flushReleases(): Promise<readonly Released[]> {
    if (this.#toRelease.length === 0) return [];
    const now = Date.now();
    const released = this.#toRelease.splice(0);
    await this.#store.release(released, now, now);
    return released;
  }

  /**
   * At a stop, once the transactions in flight are cut off: forgets the jobs whose result is not
   * known and gives them back, with those queued for release, due now. Returns instead those with
   * recipients already answered, and what those were answered (taken now: a cut-off transaction's
   * error comes later and must not count); the caller records it, which gives the job back.
   */
  async releaseAbandoned(): Promise<{ readonly ctx: JobContext; readonly result: CutOff }[]> {
    const abandoned = [...this.#jobs.values()].filter((ctx) => !this.#settling.has(ctx.job.id));
    for (const ctx of abandoned) this.#jobs.delete(ctx.job.id);
    const cut = abandoned.filter((ctx) => ctx.answered.size > 0);
    const results = cut.map((ctx) => ({ ctx, result: cutOff(ctx) }));
    const now = Date.now();
    await this.#store.release(
      [
        ...this.#toRelease.splice(0),
        ...abandoned
          .filter((ctx) => ctx.answered.size === 0)
          .map(({ job: { id, lease, lane, traffic } }) => ({ id, lease, lane, traffic })),
      ],
      now,
      now,
    );
    return results;
  }

  /** Resolves once no job is held, or after `ms`. */
  untilIdle(ms?: number): Promise<void> {
    if (this.#jobs.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.#idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Extends the lease of every job held (called every lease/3); a failure is logged, not thrown. */
  async renewLeases(): Promise<void> {
    try {
      const jobs = [...this.#jobs.values()].map(({ job }) => ({ id: job.id, lease: job.lease }));
      await this.#store.renew(jobs, Date.now() + this.#leaseMs);
    } catch (error) {
      this.#log.error({ err: error }, 'renewing delivery leases failed');
    }
  }
}

/** What the job's ended transactions answered so far. */
export function cutOff(ctx: JobContext): CutOff {
  return { kind: 'cut_off', outcomes: new Map(ctx.answered) };
}
