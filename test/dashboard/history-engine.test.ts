import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { startHistoryIndexer } from '../../src/dashboard/history/engine.js';
import { BATCH } from '../../src/dashboard/history/indexer.js';
import { BulkActivity, ViewLag } from '../../src/platform/bulk-activity.js';
import { createLogger } from '../../src/platform/log.js';

/** An indexer with `backlog` messages to index, BATCH at a time. */
function fakeIndexer(backlog: number) {
  const state = { backlog, batches: 0 };
  return {
    state,
    async catchUp() {
      const n = Math.min(BATCH, state.backlog);
      state.backlog -= n;
      state.batches += 1;
      return n;
    },
  };
}

test('the timer works through a backlog batch after batch', async (t) => {
  const indexer = fakeIndexer(BATCH * 3 + 5);
  const engine = startHistoryIndexer(indexer, createLogger('silent'), undefined, 20);
  await sleep(120);
  t.is(indexer.state.backlog, 0);
  await engine.stop();
});

test('while marketing mail is delivered the timer waits, then catches up once the lanes are quiet', async (t) => {
  const indexer = fakeIndexer(BATCH * 3);
  const bulk = new BulkActivity({ quietMs: 100 });
  bulk.mark();
  const marking = setInterval(() => bulk.mark(), 20);
  const engine = startHistoryIndexer(indexer, createLogger('silent'), new ViewLag(bulk, 60_000), 20);
  await sleep(200);
  t.is(indexer.state.batches, 0, 'nothing indexed while marketing jobs are held');
  clearInterval(marking);
  await sleep(250);
  t.is(indexer.state.backlog, 0, 'all of it once the lanes are quiet');
  await engine.stop();
});

test('a broadcast longer than the allowance does not stop the index for more than the allowance', async (t) => {
  const indexer = fakeIndexer(BATCH);
  const bulk = new BulkActivity({ quietMs: 1000 });
  bulk.mark();
  const marking = setInterval(() => bulk.mark(), 20);
  const engine = startHistoryIndexer(indexer, createLogger('silent'), new ViewLag(bulk, 150), 20);
  await sleep(80);
  t.is(indexer.state.batches, 0);
  await sleep(250);
  clearInterval(marking);
  t.is(indexer.state.backlog, 0, 'indexed once 150 ms behind, the broadcast still going');
  await engine.stop();
});
