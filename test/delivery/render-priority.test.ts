import test from 'ava';
import { marketingGate } from '../../src/delivery/compose/render-priority.js';
import type { RenderedMessage, Renderer } from '../../src/delivery/compose/renderer.js';
import type { RenderTask } from '../../src/delivery/compose/render-task.js';

/** A pool that records the order renders reach it and finishes them when told. */
function recordingPool() {
  const started: string[] = [];
  const finish: (() => void)[] = [];
  const pool: Renderer = {
    threads: 1,
    close: async () => {},
    render: (task: RenderTask) =>
      new Promise<RenderedMessage>((resolve) => {
        started.push(String(task.messageId));
        finish.push(() => resolve({ bytes: Buffer.alloc(0), size: 0, release: () => {} }));
      }),
  };
  return { pool, started, finish };
}

const task = (id: string) => ({ messageId: id }) as unknown as RenderTask;
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a transactional render reaches the pool at once, ahead of marketing renders beyond the slots', async (t) => {
  const { pool, started, finish } = recordingPool();
  const gate = marketingGate(pool, 2);
  const marketing = ['m1', 'm2', 'm3', 'm4'].map((id) => gate.render(task(id), 'marketing'));
  await tick();
  t.deepEqual(started, ['m1', 'm2'], 'two marketing renders in the pool, the others wait');
  const reset = gate.render(task('t1'), 'transactional');
  await tick();
  t.deepEqual(started, ['m1', 'm2', 't1']);
  finish.shift()?.();
  await tick();
  t.deepEqual(started, ['m1', 'm2', 't1', 'm3'], 'a freed slot goes to the next marketing render');
  while (finish.length > 0) {
    finish.shift()?.();
    await tick();
  }
  await Promise.all([...marketing, reset]);
  t.deepEqual(started, ['m1', 'm2', 't1', 'm3', 'm4']);
});
