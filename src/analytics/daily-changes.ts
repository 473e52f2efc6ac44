/**
 * What one batch of the projection changes in `analytics_daily`: per row (project, key mode,
 * acceptance day, lane), the change of each counter and the latencies entering and leaving the
 * row's histogram.
 * A record moving from `previous` to `next` takes `previous`'s contribution out of its row and
 * puts `next`'s into its row (transitions.ts says what a record contributes).
 */
import type { KeyMode } from '../platform/db/tables.js';
import {
  COUNTERS,
  type Counters,
  contribution,
  countsLatency,
  type RecipientRecord,
  zeroCounters,
} from './transitions.js';

export interface DailyChange {
  readonly project_id: string;
  readonly mode: KeyMode;
  readonly day: number;
  readonly lane: string;
  readonly counters: Counters;
  /** Latencies entering and leaving the row's histogram. */
  readonly added: number[];
  readonly removed: number[];
}

export class DailyChanges {
  readonly #rows = new Map<string, DailyChange>();

  /** The row changes of a batch, one per row touched. */
  values(): IterableIterator<DailyChange> {
    return this.#rows.values();
  }

  /** Records that a recipient's record went from `previous` (none for a new one) to `next`. */
  move(previous: RecipientRecord | undefined, next: RecipientRecord): void {
    if (previous) {
      const minus = contribution(previous);
      const entry = this.#row(previous);
      for (const name of COUNTERS) entry.counters[name] -= minus[name];
    }
    const plus = contribution(next);
    const entry = this.#row(next);
    for (const name of COUNTERS) entry.counters[name] += plus[name];
    this.#moveLatency(previous, next);
  }

  /**
   * A record's latency is in its row's histogram while it counts as delivered: taken out when it
   * stops (a DSN bounce after the delivery) or moves to another row.
   */
  #moveLatency(previous: RecipientRecord | undefined, next: RecipientRecord): void {
    const before = previous && countsLatency(previous) ? previous : undefined;
    const after = countsLatency(next) ? next : undefined;
    if (before && after && this.#row(before) === this.#row(after) && before.latency_ms === after.latency_ms) {
      return;
    }
    if (before) this.#row(before).removed.push(before.latency_ms);
    if (after) this.#row(after).added.push(after.latency_ms);
  }

  #row(record: RecipientRecord): DailyChange {
    const key = `${record.project_id}\u0000${record.mode}\u0000${record.day}\u0000${record.lane}`;
    let entry = this.#rows.get(key);
    if (!entry) {
      entry = {
        project_id: record.project_id,
        mode: record.mode,
        day: record.day,
        lane: record.lane,
        counters: zeroCounters(),
        added: [],
        removed: [],
      };
      this.#rows.set(key, entry);
    }
    return entry;
  }
}
