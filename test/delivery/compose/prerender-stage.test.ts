/**
 * The admission stage's scheduling (delivery/compose/prerender.ts): renders wait until sends have stopped
 * coming for the quiet time; a delivery takes a message the stage has not started, and waits for
 * one it is rendering; the stage is idle when nothing is queued or in flight. The parts around it are stand-ins here; the
 * real pipeline is in prerender.test.ts.
 */
import test from 'ava';
import { Prerender } from '../../../src/delivery/compose/prerender.js';
import type { RawRow } from '../../../src/delivery/compose/raw-store.js';
import type { Renderer } from '../../../src/delivery/compose/renderer.js';
import type { MessageRow } from '../../../src/delivery/queue/store.js';
import { createLogger } from '../../../src/platform/log.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function stage(quietMs: number, renderMs = 0) {
  const rendered: string[] = [];
  const stored: string[] = [];
  const renderer: Renderer = {
    threads: 1,
    async render(task) {
      rendered.push(task.messageId as string);
      await sleep(renderMs);
      return { bytes: Buffer.from('Subject: x\r\n\r\nhi\r\n'), size: 18, release: () => {} };
    },
    close: async () => {},
  };
  const message = (id: string) =>
    ({
      id,
      project_id: 'prj_1',
      status: 'queued',
      from_header: 'a@acme.test',
      from_email: 'a@acme.test',
      from_domain: 'acme.test',
      reply_to: null,
      subject: 'x',
      headers: '{}',
      tags: '{}',
      send_at: null,
      created_at: 1,
    }) as MessageRow;
  const prerender = new Prerender({
    store: { load: async (id: string) => ({ message: message(id), recipients: [] }) },
    raw: {
      write: async (rows: readonly RawRow[]) => {
        stored.push(...rows.map((r) => r.messageId));
        return rows.length;
      },
    },
    renderer,
    keys: { signingFor: async () => ({ kind: 'unsigned' }) },
    log: createLogger('silent'),
    quietMs,
  });
  return { prerender, rendered, stored };
}

test('while sends keep coming nothing is rendered; once they stop for the quiet time, all are', async (t) => {
  const { prerender, rendered, stored } = stage(80);
  for (let i = 0; i < 6; i++) {
    prerender.enqueue([`msg_${i}`]);
    await sleep(20);
  }
  t.deepEqual(rendered, [], 'no render while admission is busy');
  await prerender.idle();
  t.deepEqual(rendered, ['msg_0', 'msg_1', 'msg_2', 'msg_3', 'msg_4', 'msg_5']);
  t.deepEqual(stored, rendered);
});

test('a delivery takes a message not rendered yet for itself, and waits for one being rendered', async (t) => {
  const quiet = stage(10_000);
  quiet.prerender.enqueue(['msg_a', 'msg_b']);
  await quiet.prerender.settle('msg_b');
  t.deepEqual(quiet.rendered, [], 'the delivery renders it, unstored');
  await quiet.prerender.stop();
  t.deepEqual(quiet.rendered, [], 'a stop drops what is queued');
  await quiet.prerender.idle();

  const busy = stage(0, 100);
  busy.prerender.enqueue(['msg_c']);
  await sleep(20);
  t.deepEqual(busy.rendered, ['msg_c'], 'being rendered');
  t.deepEqual(busy.stored, []);
  await busy.prerender.settle('msg_c');
  t.deepEqual(busy.stored, ['msg_c'], 'stored by the time the delivery goes on');
  t.deepEqual(busy.rendered, ['msg_c'], 'once');
});
