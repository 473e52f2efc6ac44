/**
 * One run at a time of a projection (events/projection-runs.ts): a report's catch-up waits for
 * events held back behind running transactions, the background run does not, and a caller who
 * arrives during a run gets the next one, which waits when any of its callers asked it to.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { projectionRuns } from '../../src/events/projection-runs.js';

function recorder() {
  const runs: boolean[] = [];
  let release: () => void = () => undefined;
  const drain = async (waitHeldBack: boolean) => {
    runs.push(waitHeldBack);
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  };
  return { runs, drain, release: () => release() };
}

test('a catch-up waits for held-back events, the background run does not', async (t) => {
  const r = recorder();
  const runs = projectionRuns(r.drain);
  const report = runs.catchUp();
  r.release();
  await report;
  const background = runs.follow();
  r.release();
  await background;
  t.deepEqual(r.runs, [true, false]);
});

test('callers during a run share the next run, which waits when any of them asked for it', async (t) => {
  const r = recorder();
  const runs = projectionRuns(r.drain);
  const first = runs.follow();
  const second = runs.follow();
  const third = runs.catchUp();
  t.is(second, third, 'one next run for both');
  await sleep(5);
  t.deepEqual(r.runs, [false], 'nothing runs beside the running one');
  r.release();
  await first;
  await sleep(5);
  t.deepEqual(r.runs, [false, true]);
  r.release();
  await second;
  let settled = false;
  void runs.settled().then(() => {
    settled = true;
  });
  await sleep(5);
  t.true(settled);
});

test('a failed run does not keep the next one from running', async (t) => {
  let calls = 0;
  const runs = projectionRuns(async () => {
    calls += 1;
    await sleep(5);
    if (calls === 1) throw new Error('the database went away');
  });
  const first = runs.follow();
  const next = runs.catchUp();
  await t.throwsAsync(first, { message: 'the database went away' });
  await t.notThrowsAsync(next);
  t.is(calls, 2);
});
