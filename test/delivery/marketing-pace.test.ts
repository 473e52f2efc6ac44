import test from 'ava';
import { MarketingPace } from '../../src/delivery/marketing-pace.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps the event loop busy in slices of `sliceMs` for `totalMs`, as a flood of marketing work does. */
async function hogLoop(totalMs: number, sliceMs: number): Promise<void> {
  const end = performance.now() + totalMs;
  while (performance.now() < end) {
    const until = performance.now() + sliceMs;
    while (performance.now() < until) {
      // busy: one long turn of the loop
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('marketing yields while the event loop lags, down to its floor, and takes its width back once the loop keeps up', async (t) => {
  let raised = 0;
  const pace = new MarketingPace({
    max: 64,
    min: 2,
    highLagMs: 40,
    lowLagMs: 25,
    windowMs: 100,
    onRaise: () => raised++,
  });
  try {
    t.is(pace.limit, 64);
    t.is(pace.room(10), 54, 'room is the limit less what is held');
    await hogLoop(900, 80);
    await sleep(0);
    t.true(pace.limit < 16, `the limit was halved while the loop lagged (now ${pace.limit})`);
    t.true(pace.limit >= 2, 'never below its floor');
    t.is(pace.room(pace.limit + 5), 0, 'no room while more than the limit is held');
    const lagging = pace.limit;
    // A free loop: the limit grows back (additively), and the engine is told each time.
    for (let i = 0; i < 80 && pace.limit < 64; i++) await sleep(50);
    t.true(pace.limit > lagging, `the limit grew back once the loop kept up (now ${pace.limit})`);
    t.true(raised > 0);
  } finally {
    pace.stop();
  }
});
