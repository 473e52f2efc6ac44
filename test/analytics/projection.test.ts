import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { startAnalyticsProjection } from '../../src/analytics/engine.js';
import { createLogger } from '../../src/platform/log.js';

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
  const calls: string[] = [];
  const analytics = {
    catchUp: async () => {
      calls.push('catchUp');
    },
    follow: async () => {
      calls.push('follow');
    },
  };
  let listener: () => void = () => undefined;
  const events = {
    onAppended: (wake: () => void) => {
      listener = wake;
      return () => undefined;
    },
  };
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
