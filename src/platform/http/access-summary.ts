/**
 * The access log of high-volume routes whose clients are not API users (tracking pixels and
 * links, `RouteSpec.summarizedAccess`): their answered requests are counted per route and written
 * as one line per route every `windowMs` (requests, statuses, mean and slowest duration), where a
 * line per request cost about a tenth of the server's CPU under tracking traffic. A request that
 * failed (status 400 or more) is not counted here: it keeps its own line.
 */
import type { Logger } from '../log.js';

interface Tally {
  requests: number;
  statuses: Record<string, number>;
  totalMs: number;
  maxMs: number;
}

export const SUMMARY_WINDOW_MS = 10_000;

export class AccessSummary {
  readonly #log: Logger;
  readonly #windowMs: number;
  #tallies = new Map<string, Tally>();
  #since = Date.now();
  #timer: NodeJS.Timeout | undefined;

  constructor(log: Logger, windowMs = SUMMARY_WINDOW_MS) {
    this.#log = log;
    this.#windowMs = windowMs;
  }

  add(method: string, route: string, status: number, durationMs: number): void {
    const key = `${method} ${route}`;
    let tally = this.#tallies.get(key);
    if (!tally) {
      tally = { requests: 0, statuses: {}, totalMs: 0, maxMs: 0 };
      this.#tallies.set(key, tally);
    }
    tally.requests += 1;
    tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
    tally.totalMs += durationMs;
    if (durationMs > tally.maxMs) tally.maxMs = durationMs;
    // The window's line goes at its end; a timer writes the last one when traffic stops.
    this.#timer ??= setTimeout(() => this.flush(), this.#windowMs).unref();
  }

  /** Writes a line per route counted since the last one (the end of a window, or a stop). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const now = Date.now();
    const since = this.#since;
    this.#since = now;
    const tallies = this.#tallies;
    if (tallies.size === 0) return;
    this.#tallies = new Map();
    for (const [key, tally] of tallies) {
      const space = key.indexOf(' ');
      try {
        this.#log.info(
          {
            method: key.slice(0, space),
            route: key.slice(space + 1),
            requests: tally.requests,
            statuses: tally.statuses,
            mean_ms: Math.round((tally.totalMs / tally.requests) * 10) / 10,
            max_ms: Math.round(tally.maxMs * 10) / 10,
            window_ms: now - since,
          },
          'requests',
        );
      } catch {
        // A logger that cannot write has nowhere to report that either.
      }
    }
  }
}
