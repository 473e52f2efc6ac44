/**
 * A stop that abandoned the work in progress waits for the changes to the spool already under
 * way (a remove, a move to `failed/`), but not for ever: one stuck on a hung disk (an fsync that
 * never returns) is given `SPOOL_GRACE_MS`, logged, and left; so is taking back the run counts.
 * The stuck change is a stand-in promise that never settles: a real hung disk cannot be made here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import test from 'ava';
import { openSpool, type Spool } from '../../src/inbound/listener/spool.js';
import { createProcessorStop, SPOOL_GRACE_MS } from '../../src/inbound/processor-stop.js';
import { createLogger } from '../../src/platform/log.js';

const never = () => new Promise<never>(() => {});

async function setup(t: import('ava').ExecutionContext, spool?: (real: Spool) => Spool) {
  const dir = mkdtempSync(join(tmpdir(), 'posthorn-spool-stop-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const real = await openSpool(dir);
  const out = new PassThrough();
  let log = '';
  out.on('data', (chunk: Buffer) => {
    log += chunk;
  });
  const halt = createProcessorStop({ spool: spool ? spool(real) : real, log: createLogger('warn', out) });
  return { halt, log: () => log };
}

/** Resolves with how long `stop` took, or rejects when it is still waiting after `limitMs`. */
async function timed(stop: Promise<void>, limitMs: number): Promise<number> {
  const started = Date.now();
  const outcome = await Promise.race([
    stop.then(() => 'stopped' as const),
    new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), limitMs).unref()),
  ]);
  if (outcome === 'waiting') throw new Error(`the stop was still waiting after ${limitMs} ms`);
  return Date.now() - started;
}

test('a change to the spool stuck on a hung disk holds a stop one grace at most, and is logged', async (t) => {
  const { halt, log } = await setup(t);
  void halt.change(never()); // a move to failed/ whose fsync never returns
  const took = await timed(
    halt.stop(never, () => 1, 100),
    100 + SPOOL_GRACE_MS + 3000,
  );
  t.true(took >= 100 + SPOOL_GRACE_MS - 50, `${took} ms`);
  t.true(halt.abandoned);
  t.regex(log(), /changes to the inbound spool did not finish \(is the disk hung\?\)/);
  t.regex(log(), /stopped with 1 inbound messages still being processed/);
});

test('taking back run counts on a hung disk holds a stop one grace at most', async (t) => {
  const { halt, log } = await setup(t, (real) => ({ ...real, countRun: async () => 1, uncountRun: never }));
  await halt.countRun('msg-1');
  const took = await timed(
    halt.stop(
      async () => {},
      () => 0,
    ),
    SPOOL_GRACE_MS + 3000,
  );
  t.true(took >= SPOOL_GRACE_MS - 50, `${took} ms`);
  t.regex(log(), /run counts of unfinished inbound messages could not be taken back in time/);
});
