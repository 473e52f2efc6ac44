/**
 * Delivery latencies of one day and lane, kept so that medians over any window of days can be
 * merged from a few small rows instead of read from every message. A histogram keeps exact values
 * while it holds at most 256 distinct ones (small volumes get exact medians); beyond that it keeps
 * log-linear buckets, 32 per doubling (values under 64 ms stay exact), so a median is off by at
 * most 1/64 (1.6 %). Merging an exact and a bucketed histogram buckets both. Bucketed counts live
 * in a dense array, so merging the rows of a 90-day window is a few additions per bucket.
 *
 * Stored as JSON `[exact (1|0), value, count, value, count, ...]`; a bucket is named by its lower
 * bound.
 */
const EXACT_LIMIT = 256;
const SUB_BUCKET_BITS = 5;
const SUB_BUCKETS = 2 ** SUB_BUCKET_BITS;
const LINEAR_BELOW = 2 * SUB_BUCKETS;
/** Values up to 2^40 ms (35 years) have their own bucket; larger ones share the last. */
const MAX_EXPONENT = 40;
const BUCKETS = LINEAR_BELOW + (MAX_EXPONENT - SUB_BUCKET_BITS) * SUB_BUCKETS;

function exponent(v: number): number {
  return v < 2 ** 31 ? 31 - Math.clz32(v) : Math.floor(Math.log2(v));
}

function indexOf(value: number): number {
  const v = Math.max(0, Math.floor(value));
  if (v < LINEAR_BELOW) return v;
  const e = exponent(v);
  if (e > MAX_EXPONENT) return BUCKETS - 1;
  const sub = Math.floor(v / 2 ** (e - SUB_BUCKET_BITS)) - SUB_BUCKETS;
  return LINEAR_BELOW + (e - SUB_BUCKET_BITS - 1) * SUB_BUCKETS + sub;
}

function lowerBound(index: number): number {
  if (index < LINEAR_BELOW) return index;
  const e = Math.floor((index - LINEAR_BELOW) / SUB_BUCKETS) + SUB_BUCKET_BITS + 1;
  const sub = (index - LINEAR_BELOW) % SUB_BUCKETS;
  return (SUB_BUCKETS + sub) * 2 ** (e - SUB_BUCKET_BITS);
}

function width(index: number): number {
  if (index < LINEAR_BELOW) return 1;
  return 2 ** (Math.floor((index - LINEAR_BELOW) / SUB_BUCKETS) + 1);
}

function bump(counts: Float64Array, index: number, by: number): void {
  counts[index] = (counts[index] as number) + by;
}

/**
 * The lower bound of the bucket holding `value`.
 * @example bucketOf(1000) // 992 (the bucket [992, 1008))
 */
export function bucketOf(value: number): number {
  return lowerBound(indexOf(value));
}

export class LatencyHistogram {
  /** Exact values and their counts, while small. */
  private exact: Map<number, number> | undefined = new Map();
  /** Bucket counts by bucket index, once bucketed. */
  private dense: Float64Array | undefined;

  static parse(text: string): LatencyHistogram {
    const histogram = new LatencyHistogram();
    const flat = JSON.parse(text) as number[];
    if (flat.length === 0) return histogram;
    if (flat[0] === 1) {
      const exact = histogram.exact as Map<number, number>;
      for (let i = 1; i + 1 < flat.length; i += 2) exact.set(flat[i] as number, flat[i + 1] as number);
    } else {
      const dense = new Float64Array(BUCKETS);
      for (let i = 1; i + 1 < flat.length; i += 2)
        bump(dense, indexOf(flat[i] as number), flat[i + 1] as number);
      histogram.exact = undefined;
      histogram.dense = dense;
    }
    return histogram;
  }

  get total(): number {
    let n = 0;
    if (this.exact) for (const count of this.exact.values()) n += count;
    else for (const count of this.dense as Float64Array) n += count;
    return n;
  }

  add(value: number, count = 1): void {
    if (this.exact) {
      const key = Math.max(0, Math.round(value));
      this.exact.set(key, (this.exact.get(key) ?? 0) + count);
      if (this.exact.size > EXACT_LIMIT) this.toBuckets();
    } else {
      bump(this.dense as Float64Array, indexOf(value), count);
    }
  }

  /**
   * Takes back a value added before (a recipient delivered, then bounced by a DSN). Sound in both
   * forms: an exact value is a key of its own, and a bucketed one falls in the bucket its `add`
   * counted it in, since buckets are a fixed function of the value (also for values added while
   * exact and bucketed later). Counts never go below zero.
   */
  remove(value: number, count = 1): void {
    if (this.exact) {
      const key = Math.max(0, Math.round(value));
      const left = (this.exact.get(key) ?? 0) - count;
      if (left > 0) this.exact.set(key, left);
      else this.exact.delete(key);
    } else {
      const dense = this.dense as Float64Array;
      const index = indexOf(value);
      dense[index] = Math.max(0, (dense[index] as number) - count);
    }
  }

  merge(other: LatencyHistogram): void {
    if (other.exact) {
      for (const [value, count] of other.exact) this.add(value, count);
      return;
    }
    if (this.exact) this.toBuckets();
    const target = this.dense as Float64Array;
    const source = other.dense as Float64Array;
    for (let i = 0; i < BUCKETS; i++) bump(target, i, source[i] as number);
  }

  /** The median (the mean of the two middle values for an even count), rounded; null when empty. */
  median(): number | null {
    const n = this.total;
    if (n === 0) return null;
    const at = this.exact ? this.exactRank(this.exact) : (rank: number) => this.bucketRank(rank);
    return n % 2 === 1 ? at((n + 1) / 2) : Math.round((at(n / 2) + at(n / 2 + 1)) / 2);
  }

  serialize(): string {
    const flat: number[] = [this.exact ? 1 : 0];
    if (this.exact) {
      for (const [value, count] of [...this.exact].sort((a, b) => a[0] - b[0])) flat.push(value, count);
    } else {
      const dense = this.dense as Float64Array;
      for (let i = 0; i < BUCKETS; i++) if (dense[i]) flat.push(lowerBound(i), dense[i] as number);
    }
    return JSON.stringify(flat);
  }

  private exactRank(exact: Map<number, number>): (rank: number) => number {
    const keys = [...exact.keys()].sort((a, b) => a - b);
    return (rank) => {
      let seen = 0;
      for (const key of keys) {
        seen += exact.get(key) as number;
        if (seen >= rank) return key;
      }
      return keys.at(-1) as number;
    };
  }

  /** A bucket stands for its middle value. */
  private bucketRank(rank: number): number {
    const dense = this.dense as Float64Array;
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += dense[i] as number;
      if (seen >= rank) return lowerBound(i) + Math.floor(width(i) / 2);
    }
    return lowerBound(BUCKETS - 1);
  }

  private toBuckets(): void {
    const exact = this.exact ?? new Map<number, number>();
    this.exact = undefined;
    this.dense = new Float64Array(BUCKETS);
    for (const [value, count] of exact) bump(this.dense, indexOf(value), count);
  }
}
