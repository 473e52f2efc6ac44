import test from 'ava';
import { bucketOf, LatencyHistogram } from '../../src/analytics/latency-histogram.js';

test('a small histogram gives exact medians, odd and even', (t) => {
  const h = new LatencyHistogram();
  t.is(h.median(), null);
  for (const v of [1234, 50, 987654]) h.add(v);
  t.is(h.median(), 1234);
  h.add(2000);
  t.is(h.median(), 1617);
  const copy = LatencyHistogram.parse(h.serialize());
  t.is(copy.median(), 1617);
  t.is(copy.total, 4);
});

test('merging histograms of several days gives the median of all their values', (t) => {
  const a = new LatencyHistogram();
  const b = new LatencyHistogram();
  for (const v of [10, 20, 30]) a.add(v);
  for (const v of [40, 50]) b.add(v);
  const all = new LatencyHistogram();
  all.merge(a);
  all.merge(b);
  t.is(all.median(), 30);
});

test('buckets are 1/32 of a power of two wide, exact below 64 ms', (t) => {
  t.is(bucketOf(0), 0);
  t.is(bucketOf(63), 63);
  t.is(bucketOf(64), 64);
  t.is(bucketOf(65), 64);
  t.is(bucketOf(1000), 992);
  t.is(bucketOf(1007), 992);
  t.is(bucketOf(1023), 1008);
  t.is(bucketOf(1024), 1024);
});

test('a large histogram switches to buckets and stays within 1.6 % of the true median', (t) => {
  const h = new LatencyHistogram();
  const values: number[] = [];
  let seed = 7;
  for (let i = 0; i < 20_001; i++) {
    seed = (seed * 48271) % 2147483647;
    const v = 100 + (seed % 120_000);
    values.push(v);
    h.add(v);
  }
  values.sort((x, y) => x - y);
  const truth = values[10_000] as number;
  const median = h.median() as number;
  t.true(Math.abs(median - truth) / truth <= 1 / 64, `median ${median} vs ${truth}`);
  t.true(h.serialize().length < 20_000, 'bucketed form stays small');
  t.is(LatencyHistogram.parse(h.serialize()).median(), median);
});

test('removing values added before gives back the histogram without them, exact or bucketed', (t) => {
  const exact = new LatencyHistogram();
  for (const v of [1000, 2000, 2000, 6000]) exact.add(v);
  exact.remove(2000);
  exact.remove(6000);
  t.is(exact.serialize(), '[1,1000,1,2000,1]');
  exact.remove(777); // never added: nothing to take back
  t.is(exact.total, 2);

  // Values added while exact and bucketed later, and values added once bucketed, come out of
  // the buckets they were counted in.
  const kept = new LatencyHistogram();
  const bucketed = new LatencyHistogram();
  const extra = [1003, 45_678, 45_678, 9_999_999];
  for (const v of extra) bucketed.add(v);
  for (let v = 100; v < 100 + 300 * 37; v += 37) {
    kept.add(v);
    bucketed.add(v);
  }
  for (const v of extra) bucketed.remove(v);
  t.is(bucketed.total, kept.total);
  t.is(bucketed.serialize(), kept.serialize());
  t.is(bucketed.median(), kept.median());
});
