import test from 'ava';
import DataStream from 'nodemailer/lib/smtp-connection/data-stream.js';
import { fastDataTransform, markStuffed, stuffDots } from '../../../src/delivery/compose/dot-stuffing.js';

/** Runs `chunks` through nodemailer's DataStream, with or without the fast transform. */
async function encode(
  chunks: readonly (string | Buffer)[],
  fast: boolean,
): Promise<{ out: string; inBytes: number; outBytes: number }> {
  const stream = new DataStream() as unknown as import('node:stream').Transform & {
    inByteCount: number;
    outByteCount: number;
  };
  if (fast) stream._transform = fastDataTransform(Object.getPrototypeOf(stream)._transform) as never;
  const out: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => stream.on('end', resolve));
  for (const chunk of chunks) stream.write(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk);
  stream.end();
  await done;
  return {
    out: Buffer.concat(out).toString('latin1'),
    inBytes: stream.inByteCount,
    outBytes: stream.outByteCount,
  };
}

const cases: [string, string[]][] = [
  ['plain lines', ['Subject: a\r\n\r\nhello\r\nworld\r\n']],
  ['a dot line', ['a\r\n.\r\nb\r\n']],
  ['dots at line starts', ['Subject: x\r\n\r\n.hidden\r\n..two\r\nend.\r\n.']],
  ['a dot at the very start', ['.starts with a dot\r\n']],
  ['a dot after a chunk boundary', ['line\r\n', '.dot\r\n']],
  ['a CRLF split across chunks', ['line\r', '\n.dot\r\n']],
  ['a bare LF', ['a\nb\r\n.c\n.d\r\n']],
  ['a bare CR', ['a\rb\r\n']],
  ['no final line break', ['abc']],
  ['8-bit bytes', ['caf\xe9\r\n.\xff\r\n']],
];

for (const [name, chunks] of cases) {
  test(`the fast DATA encoding of ${name} equals nodemailer's`, async (t) => {
    t.deepEqual(await encode(chunks, true), await encode(chunks, false));
  });
}

const wholeMessages = [
  'Subject: a\r\n\r\nhello\r\nworld\r\n',
  'Subject: x\r\n\r\n.hidden\r\n..two\r\nend.\r\n.\r\n',
  '.starts with a dot\r\n',
  'a\r\n.\r\n.\r\n.\r\n',
  'style\r\n.btn{color:red}\r\n.x .y{}\r\n',
];

for (const message of wholeMessages) {
  test(`a message stuffed in the worker goes on the wire as nodemailer would write it: ${JSON.stringify(message.slice(0, 24))}`, async (t) => {
    const stuffed = markStuffed(stuffDots(Buffer.from(message, 'latin1')));
    const reference = await encode([message], false);
    const fast = await encode([stuffed], true);
    t.is(fast.out, reference.out);
    t.is(fast.outBytes, reference.outBytes);
  });
}

test('a message with no line starting with a dot is not copied to be stuffed', (t) => {
  const message = Buffer.from('Subject: a\r\n\r\nno dots here.\r\n');
  t.is(stuffDots(message), message);
});

test('dots are added in place when the buffer has room after the message, else in a new buffer', (t) => {
  for (const message of wholeMessages) {
    const expected = stuffDots(Buffer.from(message, 'latin1')).toString('latin1');
    const dots = expected.length - message.length;
    const container = Buffer.alloc(8 + message.length + dots + 8, 0x7e);
    const inside = container.subarray(8, 8 + message.length);
    inside.write(message, 'latin1');
    const stuffed = stuffDots(inside, dots);
    t.is(stuffed.toString('latin1'), expected);
    if (dots > 0) t.is(stuffed.buffer, container.buffer, 'stuffed where it lay');
    t.is(
      container.subarray(8 + message.length + dots).toString('latin1'),
      '~'.repeat(8),
      'nothing past the room',
    );
    if (dots > 0) t.not(stuffDots(Buffer.from(message, 'latin1'), dots - 1).buffer, container.buffer);
  }
});
