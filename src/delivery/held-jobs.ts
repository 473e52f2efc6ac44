/**
 * The jobs the delivery engine holds in memory: claimed (leased) and not yet recorded or given
 * back. It renews their leases while they are worked on, gives back the jobs a step released
 * (in batches), and at a stop releases those whose result is not known yet.
 *
 * A job whose result is known is "settling" (being recorded or released): a stop never abandons
 * it, so an outcome already in hand is written, not released.
 */
import type { Traffic } from '../platform/db/tables.js';
import type { Logger } from '../platform/log.js';
import type { ClaimedJob, DeliveryStore } from './store.js';

/** A job to give back to the queue, with the lane it keeps. */
export interface Released {
  readonly id: string;
  readonly lane: string | null;
  readonly traffic: Traffic;
}

export class HeldJobs {
  readonly #store: Pick<DeliveryStore, 'release' | 'renew'>;
  readonly #leaseMs: number;
  readonly #log: Logger;
  readonly #jobs = new Map<string, ClaimedJob>();
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

  add(job: ClaimedJob): void {
    this.#jobs.set(job.id, job);
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
   * known and gives them back, with those queued for release, due now.
   */
  async releaseAbandoned(): Promise<void> {
    const abandoned = [...this.#jobs.values()].filter((job) => !this.#settling.has(job.id));
    for (const job of abandoned) this.#jobs.delete(job.id);
    const now = Date.now();
    await this.#store.release(
      [...this.#toRelease.splice(0), ...abandoned.map(({ id, lane, traffic }) => ({ id, lane, traffic }))],
      now,
      now,
    );
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
      await this.#store.renew([...this.#jobs.keys()], Date.now() + this.#leaseMs);
    } catch (error) {
      this.#log.error({ err: error }, 'renewing delivery leases failed');
    }
  }
}
