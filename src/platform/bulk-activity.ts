/**
 * Background work that may wait steps aside while marketing mail is being delivered.
 *
 * A broadcast's delivery is bound by the one event loop (BENCHMARKS.md, "Broadcast"), and two
 * derived views followed every one of its messages on that loop as it went: the message history's
 * search index (dashboard/history) and the analytics projection. Neither is needed at once: a
 * history page and an analytics report each catch their view up before they answer. So while
 * marketing jobs are held, a view's background run waits, at most `maxLagMs` behind the store,
 * and catches up once the marketing lanes are quiet (docs/decisions/broadcasts.md, "Derived views
 * wait while a broadcast is delivered").
 *
 * @example
 *   const bulk = new BulkActivity();
 *   const lag = new ViewLag(bulk, 60_000);
 *   // delivery, whenever it holds marketing jobs: bulk.mark()
 *   // a view's timer: if (!lag.waiting) { await drain(); lag.caughtUp(); }
 */

/** Marketing counts as active this long after delivery last held a marketing job, ms. */
export const BULK_QUIET_MS = 2000;

export class BulkActivity {
  readonly #quietMs: number;
  readonly #clock: () => number;
  #lastAt = Number.NEGATIVE_INFINITY;

  constructor(options: { readonly quietMs?: number; readonly clock?: () => number } = {}) {
    this.#quietMs = options.quietMs ?? BULK_QUIET_MS;
    this.#clock = options.clock ?? Date.now;
  }

  /** Delivery holds marketing jobs now. */
  mark(): void {
    this.#lastAt = this.#clock();
  }

  /** Whether marketing mail was being delivered within the quiet period. */
  get active(): boolean {
    return this.#clock() - this.#lastAt < this.#quietMs;
  }
}

/** One view's allowance: how far behind its background runs may fall while marketing is active. */
export class ViewLag {
  readonly #activity: Pick<BulkActivity, 'active'> | undefined;
  readonly #maxLagMs: number;
  readonly #clock: () => number;
  #caughtUpAt: number;

  /** `activity` undefined or `maxLagMs` 0: the view never waits. */
  constructor(
    activity: Pick<BulkActivity, 'active'> | undefined,
    maxLagMs: number,
    clock: () => number = Date.now,
  ) {
    this.#activity = activity;
    this.#maxLagMs = maxLagMs;
    this.#clock = clock;
    this.#caughtUpAt = clock();
  }

  /** Whether a background run should wait now: marketing is active and the view is not yet `maxLagMs` behind. */
  get waiting(): boolean {
    if (this.#activity === undefined || this.#maxLagMs <= 0 || !this.#activity.active) return false;
    return this.#clock() - this.#caughtUpAt < this.#maxLagMs;
  }

  /** The view read everything committed when its run started (`startedAt`). */
  caughtUp(startedAt: number = this.#clock()): void {
    this.#caughtUpAt = Math.max(this.#caughtUpAt, startedAt);
  }

  /** The clock the allowance reads (a run notes its start with it). */
  now(): number {
    return this.#clock();
  }
}
