/**
 * The share of deferred delivery attempts per lane over a sliding window. Each measurement reads
 * only the attempts logged since the previous one (`attemptCountsAfter`) and keeps per-lane counts
 * in time buckets, so the cost does not grow with the traffic of the window.
 *
 * A lane is judged only once it has `minAttempts` in the window: one dead recipient domain retried
 * on its schedule should not turn a quiet installation's status red.
 */
import type { ComponentState } from '../model.js';

export interface AttemptCounts {
  readonly lastId: number;
  readonly counts: readonly { lane: string | null; outcome: string; count: number }[];
}

export interface DeferralPolicy {
  readonly windowMs: number;
  readonly minAttempts: number;
  readonly degradedShare: number;
  readonly outageShare: number;
}

interface Bucket {
  readonly at: number;
  readonly lanes: Map<string, { total: number; deferred: number }>;
}

export interface LaneDeferral {
  readonly lane: string;
  readonly total: number;
  readonly deferred: number;
  readonly state: ComponentState;
}

export class DeferralWindow {
  #cursor: number | undefined;
  readonly #buckets: Bucket[] = [];

  constructor(
    private readonly policy: DeferralPolicy,
    private readonly read: (afterId: number | undefined) => Promise<AttemptCounts>,
  ) {}

  /** Reads the attempts logged since the last call and judges every lane seen in the window. */
  async measure(now: number): Promise<LaneDeferral[]> {
    const { lastId, counts } = await this.read(this.#cursor);
    this.#cursor = lastId;
    if (counts.length > 0) {
      const lanes = new Map<string, { total: number; deferred: number }>();
      for (const { lane, outcome, count } of counts) {
        const key = lane ?? '(unrouted)';
        const sums = lanes.get(key) ?? { total: 0, deferred: 0 };
        sums.total += count;
        if (outcome === 'deferred') sums.deferred += count;
        lanes.set(key, sums);
      }
      this.#buckets.push({ at: now, lanes });
    }
    while (this.#buckets.length > 0 && (this.#buckets[0] as Bucket).at <= now - this.policy.windowMs)
      this.#buckets.shift();
    const totals = new Map<string, { total: number; deferred: number }>();
    for (const bucket of this.#buckets) {
      for (const [lane, sums] of bucket.lanes) {
        const total = totals.get(lane) ?? { total: 0, deferred: 0 };
        total.total += sums.total;
        total.deferred += sums.deferred;
        totals.set(lane, total);
      }
    }
    return [...totals].map(([lane, { total, deferred }]) => ({
      lane,
      total,
      deferred,
      state: this.#judge(total, deferred),
    }));
  }

  #judge(total: number, deferred: number): ComponentState {
    if (total < this.policy.minAttempts) return 'operational';
    const share = deferred / total;
    if (share >= this.policy.outageShare) return 'partial_outage';
    if (share >= this.policy.degradedShare) return 'degraded';
    return 'operational';
  }
}
