import test from 'ava';
import { TokenBucket } from '../../../src/delivery/smtp/token-bucket.js';

function clock(start = 1000) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

test('a new bucket is full: a burst of tokens can be taken at once', (t) => {
  const c = clock();
  const bucket = new TokenBucket({ ratePerSecond: 5, burst: 3, now: c.now });
  t.true(bucket.take());
  t.true(bucket.take());
  t.true(bucket.take());
  t.false(bucket.take());
});

test('an empty bucket refills at the rate and says how long to wait', (t) => {
  const c = clock();
  const bucket = new TokenBucket({ ratePerSecond: 10, burst: 1, now: c.now });
  t.true(bucket.take());
  t.is(bucket.waitMs(), 100);
  c.advance(40);
  t.is(bucket.waitMs(), 60);
  t.false(bucket.take());
  c.advance(60);
  t.is(bucket.waitMs(), 0);
  t.true(bucket.take());
});

test('a refused take takes nothing', (t) => {
  const c = clock();
  const bucket = new TokenBucket({ ratePerSecond: 1, burst: 2, now: c.now });
  t.true(bucket.take());
  c.advance(500);
  t.false(bucket.take(2));
  t.is(bucket.available(), 1.5);
});

test('tokens never pile up beyond the burst', (t) => {
  const c = clock();
  const bucket = new TokenBucket({ ratePerSecond: 100, burst: 2, now: c.now });
  c.advance(60_000);
  t.is(bucket.available(), 2);
  t.true(bucket.take(2));
  t.false(bucket.take());
});

test('the burst defaults to the rate, and to 1 for a rate under one per second', (t) => {
  t.is(new TokenBucket({ ratePerSecond: 20 }).burst, 20);
  t.is(new TokenBucket({ ratePerSecond: 0.5 }).burst, 1);
});

test('a fractional rate waits whole seconds between tokens', (t) => {
  const c = clock();
  const bucket = new TokenBucket({ ratePerSecond: 0.5, now: c.now });
  t.true(bucket.take());
  t.is(bucket.waitMs(), 2000);
});

test('a caller who waited waitMs() is never refused, whatever the rounding', (t) => {
  const c = clock();
  const bucket = new TokenBucket({ ratePerSecond: 3, burst: 1, now: c.now });
  for (let i = 0; i < 200; i += 1) {
    if (!bucket.take()) {
      c.advance(bucket.waitMs());
      t.true(bucket.take(), `refused after waiting, round ${i}`);
    }
    c.advance(i % 7);
  }
});

test('a sustained stream is held to the rate', (t) => {
  const c = clock();
  const bucket = new TokenBucket({ ratePerSecond: 50, burst: 5, now: c.now });
  let taken = 0;
  for (let ms = 0; ms < 10_000; ms += 1) {
    while (bucket.take()) taken += 1;
    c.advance(1);
  }
  // 5 at the start, then 50 per second for 10 seconds.
  t.true(taken >= 500 && taken <= 505, `took ${taken}`);
});

test('a clock that goes backwards adds no tokens', (t) => {
  const c = clock(10_000);
  const bucket = new TokenBucket({ ratePerSecond: 1, burst: 1, now: c.now });
  t.true(bucket.take());
  c.advance(-5000);
  t.false(bucket.take());
});

test('impossible settings and requests are refused', (t) => {
  t.throws(() => new TokenBucket({ ratePerSecond: 0 }), { instanceOf: RangeError });
  t.throws(() => new TokenBucket({ ratePerSecond: Number.NaN }), { instanceOf: RangeError });
  t.throws(() => new TokenBucket({ ratePerSecond: 1, burst: 0.5 }), { instanceOf: RangeError });
  const bucket = new TokenBucket({ ratePerSecond: 1, burst: 2 });
  t.throws(() => bucket.waitMs(3), { instanceOf: RangeError });
  t.throws(() => bucket.take(0), { instanceOf: RangeError });
});
