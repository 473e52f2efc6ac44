import test from 'ava';
import { BulkActivity, ViewLag } from '../../src/platform/bulk-activity.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

test('marketing counts as active for the quiet period after delivery last held a marketing job', (t) => {
  const c = clock();
  const bulk = new BulkActivity({ quietMs: 2000, clock: c.now });
  t.false(bulk.active, 'nothing marked yet');
  bulk.mark();
  t.true(bulk.active);
  c.advance(1999);
  t.true(bulk.active);
  c.advance(1);
  t.false(bulk.active);
});

test('a view waits while marketing is active, until it is max-lag behind; then it runs and waits again', (t) => {
  const c = clock();
  const bulk = new BulkActivity({ quietMs: 2000, clock: c.now });
  const lag = new ViewLag(bulk, 60_000, c.now);
  t.false(lag.waiting, 'no marketing: the view follows');
  bulk.mark();
  t.true(lag.waiting);
  c.advance(59_000);
  bulk.mark();
  t.true(lag.waiting, '59 s behind: still within the allowance');
  c.advance(1000);
  bulk.mark();
  t.false(lag.waiting, '60 s behind: the view catches up despite the broadcast');
  const started = lag.now();
  c.advance(3000);
  lag.caughtUp(started);
  bulk.mark();
  t.true(lag.waiting, 'caught up as of its start: it may wait again');
  c.advance(57_000);
  bulk.mark();
  t.false(lag.waiting, 'the allowance counts from the start of the last run, not its end');
});

test('a view stops waiting as soon as the marketing lanes are quiet', (t) => {
  const c = clock();
  const bulk = new BulkActivity({ quietMs: 2000, clock: c.now });
  const lag = new ViewLag(bulk, 60_000, c.now);
  bulk.mark();
  t.true(lag.waiting);
  c.advance(2000);
  t.false(lag.waiting);
});

test('without an activity, or with an allowance of 0, a view never waits', (t) => {
  const c = clock();
  const bulk = new BulkActivity({ clock: c.now });
  bulk.mark();
  t.false(new ViewLag(undefined, 60_000, c.now).waiting);
  t.false(new ViewLag(bulk, 0, c.now).waiting);
});

test('caughtUp never moves the allowance back', (t) => {
  const c = clock();
  const bulk = new BulkActivity({ clock: c.now });
  const lag = new ViewLag(bulk, 10_000, c.now);
  c.advance(9000);
  lag.caughtUp(c.now());
  lag.caughtUp(c.now() - 9000); // a slower run that started earlier finishes later
  c.advance(9000);
  bulk.mark();
  t.true(lag.waiting);
});
