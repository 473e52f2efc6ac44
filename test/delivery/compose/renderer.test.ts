import { generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { createRenderer } from '../../../src/delivery/compose/renderer.js';
import type { RenderTask } from '../../../src/delivery/compose/render-task.js';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

/** A one-part message (no random boundary), signed at a fixed time: the same bytes every time. */
function task(html: string, n: number): RenderTask {
  return {
    fields: {
      from: 'Acme <hello@acme.test>',
      to: [`user${n}@example.test`],
      cc: [],
      replyTo: [],
      subject: `Order ${n}`,
      headers: {},
      messageId: `<msg_${n}@acme.test>`,
      date: 1_700_000_000_000,
    },
    messageId: null,
    bodies: { html, text: null },
    dkim: {
      domain: 'acme.test',
      keys: [{ selector: 's1', privateKeyPem: privateKey, algorithm: 'rsa-sha256' }],
    },
    signTime: 1_700_000_000_000,
  };
}

/** The length of a message in DATA form once the dots stuffing added are taken out (RFC 5321 §4.5.2). */
const unstuffedLength = (bytes: Buffer) =>
  Buffer.from(bytes.toString('latin1').replaceAll('\r\n..', '\r\n.'), 'latin1').length;

const html = (n: number, kb: number) =>
  `<style>\n.btn{color:red}\n</style>\n${`<p>Grüße, order ${n} — thanks.</p>\n`.repeat(Math.ceil((kb * 1024) / 40))}`;

test('messages rendered into shared slots, or handed over when none is free, are the same bytes', async (t) => {
  const renderer = createRenderer(1, ':memory:', { slots: 2, slotSize: 64 * 1024 });
  const fresh = createRenderer(1, ':memory:', { slots: 0 });
  try {
    const held = [];
    for (let n = 0; n < 4; n++) held.push(await renderer.render(task(html(n, 8), n)));
    for (const [n, message] of held.entries()) {
      const reference = await fresh.render(task(html(n, 8), n));
      t.is(message.bytes.toString('latin1'), reference.bytes.toString('latin1'), `message ${n}`);
      t.is(
        message.bytes.buffer instanceof SharedArrayBuffer,
        n < 2,
        'the first two in slots, then their own',
      );
    }
    // Lines starting with a dot (the style sheet) were stuffed for DATA; the size is the message's.
    t.true(held[0]?.bytes.includes('\r\n..btn{color:red}'));
    for (const message of held) t.is(message.size, unstuffedLength(message.bytes));
    for (const message of held) message.release();
    const again = await renderer.render(task(html(9, 8), 9));
    t.true(again.bytes.buffer instanceof SharedArrayBuffer, 'a released slot is used again');
    again.release();
    again.release();
  } finally {
    await renderer.close();
    await fresh.close();
  }
});

test('a message larger than a slot is handed over in a buffer of its own', async (t) => {
  const renderer = createRenderer(1, ':memory:', { slots: 4, slotSize: 16 * 1024 });
  try {
    const big = await renderer.render(task(html(1, 40), 1));
    t.false(big.bytes.buffer instanceof SharedArrayBuffer);
    t.true(big.bytes.length > 40 * 1024);
    t.true(big.bytes.includes('\r\n..btn{color:red}'), 'stuffed for DATA too');
    t.is(big.size, unstuffedLength(big.bytes), 'its size is the message before stuffing');
    t.true(big.size < big.bytes.length);
    big.release();
  } finally {
    await renderer.close();
  }
});
