import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { startAnalyticsProjection } from '../../src/analytics/engine.js';
import { BulkActivity, ViewLag } from '../../src/platform/bulk-activity.js';
import { createLogger } from '../../src/platform/log.js';

/** An analytics service that records its runs, and an event log whose appends the test fires. */
function fakes() {
  const calls: string[] = [];
  const analytics = {
    catchUp: async () => {
      calls.push('catchUp');
    },
    follow: async () => {
      calls.push('follow');
    },
  };
  const events = {
    listener: (): void => undefined,
    onAppended(wake: () => void) {
      events.listener = wake;
      return () => undefined;
    },
  };
  return { calls, analytics, events };
}

test('the projection never runs after stop, even when the poll ran while a coalesced run was pending', async (t) => {
  let stopped = false;
  let runsAfterStop = 0;
  let listener: () => void = () => undefined;
  const run = async () => {
    if (stopped) runsAfterStop += 1;
  };
  const analytics = { catchUp: run, follow: run };
  const events = {
    onAppended: (wake: () => void) => {
      listener = wake;
      return () => {
        listener = () => undefined;
      };
    },
  };
  const projection = startAnalyticsProjection(analytics, events, createLogger('silent'), {
    coalesceMs: 80,
    pollMs: 30,
  });
  listener(); // a coalesced run is now pending for 80 ms
  await sleep(40); // the poll runs in between
  listener(); // and events keep coming
  await projection.stop();
  stopped = true;
  await sleep(200);
  t.is(runsAfterStop, 0);
});

test('wakes run the background pass, which does not wait for held-back events; the stop catches up', async (t) => {
  const { calls, analytics, events } = fakes();
  const listener = () => events.listener();
  const projection = startAnalyticsProjection(analytics, events, createLogger('silent'), {
    coalesceMs: 10,
    pollMs: 60_000,
  });
  listener();
  await sleep(50);
  t.deepEqual(calls, ['follow', 'follow'], 'the first run at start, then the wake');
  await projection.stop();
  t.deepEqual(calls, ['follow', 'follow', 'catchUp']);
});

test('while marketing mail is delivered the background pass waits, and runs once the lanes are quiet', async (t) => {
  const { calls, analytics, events } = fakes();
  const listener = () => events.listener();
  const bulk = new BulkActivity({ quietMs: 150 });
  bulk.mark();
  const marking = setInterval(() => bulk.mark(), 20);
  const projection = startAnalyticsProjection(
    analytics,
    events,
    createLogger('silent'),
    { coalesceMs: 10, pollMs: 60_000, recheckMs: 30 },
    new ViewLag(bulk, 60_000),
  );
  for (let i = 0; i < 5; i++) {
    listener();
    await sleep(20);
  }
  t.deepEqual(calls, [], 'no pass while marketing jobs are held');
  clearInterval(marking);
  await sleep(300);
  t.deepEqual(calls, ['follow'], 'one pass once the lanes are quiet');
  await projection.stop();
});

test('a broadcast longer than the allowance still gets a pass every max-lag', async (t) => {
  const { calls, analytics, events } = fakes();
  const bulk = new BulkActivity({ quietMs: 1000 });
  bulk.mark();
  const marking = setInterval(() => bulk.mark(), 20);
  const projection = startAnalyticsProjection(
    analytics,
    events,
    createLogger('silent'),
    { coalesceMs: 10, pollMs: 60_000, recheckMs: 20 },
    new ViewLag(bulk, 150),
  );
  await sleep(100);
  t.deepEqual(calls, []);
  await sleep(300);
  clearInterval(marking);
  t.true(calls.length >= 1 && calls.length <= 3, `${calls.length} passes in 400 ms with a 150 ms allowance`);
  await projection.stop();
});
