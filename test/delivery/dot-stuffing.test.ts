import test from 'ava';
import DataStream from 'nodemailer/lib/smtp-connection/data-stream.js';
import { fastDataTransform } from '../../src/delivery/dot-stuffing.js';

/** Runs `chunks` through nodemailer's DataStream, with or without the fast transform. */
async function encode(
  chunks: readonly string[],
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
  for (const chunk of chunks) stream.write(Buffer.from(chunk, 'latin1'));
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
