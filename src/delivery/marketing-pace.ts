/**
 * Marketing yields the event loop to transactional mail. Every step of a transactional send (its
 * request, its commit, its claim, its SMTP transaction) waits for turns of the one event loop, and
 * a broadcast's deliveries fill those turns: on a host short of CPU a password reset then waited
 * several times its idle time (`scripts/bench broadcast`). So the marketing jobs the engine holds
 * at once are bounded by a limit that follows the event loop's delay, additive increase and
 * multiplicative decrease as TCP's congestion window: halved while the loop lags, raised again
 * while it keeps up. On a host with CPU to spare the loop never lags and a broadcast runs at its
 * lanes' full width; on a starved one it slows down, and transactional mail keeps its pace.
 * Transactional jobs are never bounded by it.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface PaceOptions {
  /** The most marketing jobs held at once (the marketing lanes' high-water marks together). */
  readonly max: number;
  /** The fewest: a broadcast always moves. */
  readonly min?: number;
  /** Above this 90th percentile of the loop's delay (ms) over a window, the limit is halved. */
  readonly highLagMs?: number;
  /** Below this one it grows again. */
  readonly lowLagMs?: number;
  readonly windowMs?: number;
  /** Called when the limit grew (the engine claims again). */
  readonly onRaise?: () => void;
}

// 30 and 12 ms let a moderately loaded host's loop sit between them with the marketing lanes
// full, and a password reset then took 1.8–3.3x its idle time (BENCHMARKS.md, "Broadcast").
const DEFAULT_HIGH_LAG_MS = 15;
const DEFAULT_LOW_LAG_MS = 6;
const DEFAULT_WINDOW_MS = 250;
/** The histogram's sampling period: its delays are measured beyond it. */
const RESOLUTION_MS = 10;

export class MarketingPace {
  readonly #max: number;
  readonly #min: number;
  readonly #high: number;
  readonly #low: number;
  readonly #onRaise: (() => void) | undefined;
  readonly #delay: ReturnType<typeof monitorEventLoopDelay>;
  readonly #timer: NodeJS.Timeout;
  #limit: number;

  constructor(options: PaceOptions) {
    this.#max = Math.max(1, options.max);
    this.#min = Math.min(this.#max, Math.max(1, options.min ?? 2));
    this.#high = options.highLagMs ?? DEFAULT_HIGH_LAG_MS;
    this.#low = options.lowLagMs ?? DEFAULT_LOW_LAG_MS;
    this.#onRaise = options.onRaise;
    this.#limit = this.#max;
    this.#delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.#delay.enable();
    this.#timer = setInterval(() => this.#adjust(), options.windowMs ?? DEFAULT_WINDOW_MS);
    this.#timer.unref();
  }

  /** Marketing jobs that may be held now. */
  get limit(): number {
    return this.#limit;
  }

  /** How many more marketing jobs may be claimed while `held` are held. */
  room(held: number): number {
    return Math.max(0, this.#limit - held);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#delay.disable();
  }

  #adjust(): void {
    // Delays beyond the sampling period, in ms; an empty window (the loop was blocked throughout)
    // counts as lagging.
    const lag =
      this.#delay.count === 0 ? Number.POSITIVE_INFINITY : this.#delay.percentile(90) / 1e6 - RESOLUTION_MS;
    this.#delay.reset();
    if (lag > this.#high) {
      this.#limit = Math.max(this.#min, Math.floor(this.#limit / 2));
    } else if (lag < this.#low && this.#limit < this.#max) {
      this.#limit = Math.min(this.#max, this.#limit + Math.max(1, Math.floor(this.#limit / 8)));
      this.#onRaise?.();
    }
  }
}
