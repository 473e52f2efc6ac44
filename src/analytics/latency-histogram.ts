/**
 * Delivery latencies of one day and lane, kept so that medians over any window of days can be
 * merged from a few small rows instead of read from every message. A histogram keeps exact values
 * while it holds at most 256 distinct ones (small volumes get exact medians); beyond that it keeps
 * log-linear buckets, 32 per doubling (values under 64 ms stay exact), so a median is off by at
 * most 1/64 (1.6 %). Merging an exact and a bucketed histogram buckets both.
 *
 * Stored as JSON `[exact (1|0), value, count, value, count, ...]`; a bucket is named by its lower
 * bound.
 */
const EXACT_LIMIT = 256;
const SUB_BUCKET_BITS = 5;
const LINEAR_BELOW = 2 ** (SUB_BUCKET_BITS + 1);

function bucketWidth(lower: number): number {
  if (lower < LINEAR_BELOW) return 1;
  return 2 ** (Math.floor(Math.log2(lower)) - SUB_BUCKET_BITS);
}

/**
 * The lower bound of the bucket holding `value`.
 * @example bucketOf(1000) // 992 (the bucket [992, 1008))
 */
export function bucketOf(value: number): number {
  const v = Math.max(0, Math.floor(value));
  const width = bucketWidth(v);
  return Math.floor(v / width) * width;
}

export class LatencyHistogram {
  private exact = true;
  private readonly counts = new Map<number, number>();

  static parse(text: string): LatencyHistogram {
    const histogram = new LatencyHistogram();
    const flat = JSON.parse(text) as number[];
    if (flat.length === 0) return histogram;
    histogram.exact = flat[0] === 1;
    for (let i = 1; i + 1 < flat.length; i += 2) {
      histogram.counts.set(flat[i] as number, flat[i + 1] as number);
    }
    return histogram;
  }

  get total(): number {
    let n = 0;
    for (const count of this.counts.values()) n += count;
    return n;
  }

  add(value: number, count = 1): void {
    const key = this.exact ? Math.max(0, Math.round(value)) : bucketOf(value);
    this.counts.set(key, (this.counts.get(key) ?? 0) + count);
    if (this.exact && this.counts.size > EXACT_LIMIT) this.toBuckets();
  }

  merge(other: LatencyHistogram): void {
    if (this.exact && !other.exact) this.toBuckets();
    for (const [value, count] of other.counts) this.add(value, count);
  }

  /** The median (the mean of the two middle values for an even count), rounded; null when empty. */
  median(): number | null {
    const n = this.total;
    if (n === 0) return null;
    const keys = [...this.counts.keys()].sort((a, b) => a - b);
    const at = (rank: number): number => {
      let seen = 0;
      for (const key of keys) {
        seen += this.counts.get(key) as number;
        if (seen >= rank) return this.exact ? key : key + Math.floor(bucketWidth(key) / 2);
      }
      return keys.at(-1) as number;
    };
    return n % 2 === 1 ? at((n + 1) / 2) : Math.round((at(n / 2) + at(n / 2 + 1)) / 2);
  }

  serialize(): string {
    const flat: number[] = [this.exact ? 1 : 0];
    for (const [value, count] of [...this.counts].sort((a, b) => a[0] - b[0])) flat.push(value, count);
    return JSON.stringify(flat);
  }

  private toBuckets(): void {
    const exact = [...this.counts];
    this.counts.clear();
    this.exact = false;
    for (const [value, count] of exact) this.add(value, count);
  }
}
