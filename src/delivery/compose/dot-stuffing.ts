/**
 * The DATA encoding of RFC 5321 §4.5.2 (a line that starts with "." gets another "."), done with
 * native buffer searches. nodemailer's DataStream does it one byte at a time in JavaScript, which
 * for a 100 KB message costs more of the event loop than everything else about sending it.
 *
 * Messages the render workers compose are stuffed there (`stuffDots`, one native search of the
 * whole message, CRLF-only by construction) and marked when they reach the event loop
 * (`markStuffed`): the SMTP connection then writes them as they are. Anything else goes through
 * `fastDataTransform`, which replaces DataStream's `_transform` on each stream nodemailer creates
 * (see mx-connection.ts) and keeps its contract: the same counters, and only CRLF line breaks on
 * the wire. A chunk with a bare CR or LF (never the case for messages we compose, but possible in
 * principle) is left to DataStream's own code, which defines how those are rewritten.
 */
import type { Transform, TransformCallback } from 'node:stream';

/** The fields DataStream keeps; `lastByte` is the previous chunk's last byte, or false at the start. */
export interface DataStreamState {
  inByteCount: number;
  outByteCount: number;
  lastByte: number | false;
}

type TransformFn = (
  this: Transform & DataStreamState,
  chunk: Buffer,
  encoding: BufferEncoding,
  done: TransformCallback,
) => void;

const DOT = Buffer.from('.');
const DOT_LINE = Buffer.from('\r\n.');
const CR = 0x0d;
const LF = 0x0a;
const PERIOD = 0x2e;

/** Messages already in their DATA form: stuffed, CRLF-only, ending with CRLF. */
const stuffed = new WeakSet<Buffer>();

/**
 * A whole message (CRLF line breaks only, as composed) in its DATA form: a dot doubled at the
 * start of every line. The same buffer when no line starts with a dot, the common case. When
 * `room` bytes after the message (in its buffer) are free and enough, the dots are added in
 * place, into them; otherwise the stuffed message gets a buffer of its own.
 *
 * @example stuffDots(Buffer.from('a\r\n.b\r\n')).toString() // 'a\r\n..b\r\n'
 */
export function stuffDots(message: Buffer, room = 0): Buffer {
  const at: number[] = message[0] === PERIOD ? [0] : [];
  for (let i = message.indexOf(DOT_LINE); i !== -1; i = message.indexOf(DOT_LINE, i + 3)) at.push(i + 2);
  if (at.length === 0) return message;
  if (at.length <= room) {
    // Back to front, each stretch moves right by the dots before it (copyWithin may overlap).
    const out = Buffer.from(message.buffer, message.byteOffset, message.length + at.length);
    let end = message.length;
    for (let k = at.length - 1; k >= 0; k--) {
      const dot = at[k] as number;
      out.copyWithin(dot + k + 1, dot, end);
      out[dot + k] = PERIOD;
      end = dot;
    }
    return out;
  }
  const out = Buffer.allocUnsafeSlow(message.length + at.length);
  let from = 0;
  let offset = 0;
  for (const dot of at) {
    offset += message.copy(out, offset, from, dot);
    out[offset++] = PERIOD;
    from = dot;
  }
  message.copy(out, offset, from);
  return out;
}

/** Tells the SMTP connection that `message` came from `stuffDots` (the event loop's side). */
export function markStuffed(message: Buffer): Buffer {
  stuffed.add(message);
  return message;
}

/** Returns DataStream's transform made fast for CRLF-only chunks; `original` handles the rest. */
export function fastDataTransform(original: TransformFn): TransformFn {
  return function transform(chunk, encoding, done) {
    if (typeof chunk === 'string' || chunk.length === 0) return original.call(this, chunk, encoding, done);
    if (stuffed.has(chunk) && this.lastByte === false) {
      this.inByteCount += chunk.length;
      this.outByteCount += chunk.length;
      this.lastByte = chunk[chunk.length - 1] as number;
      this.push(chunk);
      return done();
    }
    const stuffAt = lineStarts(chunk, this.lastByte);
    // A bare CR or LF, or a CRLF split across chunks, goes the careful way.
    if (stuffAt === null) return original.call(this, chunk, encoding, done);
    this.inByteCount += chunk.length;
    if (stuffAt.length === 0) {
      this.outByteCount += chunk.length;
      this.push(chunk);
    } else {
      const parts: Buffer[] = [];
      let from = 0;
      for (const at of stuffAt) {
        parts.push(chunk.subarray(from, at), DOT);
        from = at;
      }
      parts.push(chunk.subarray(from));
      const out = Buffer.concat(parts);
      this.outByteCount += out.length;
      this.push(out);
    }
    this.lastByte = chunk[chunk.length - 1] as number;
    done();
  };
}

/**
 * Offsets of the dots that start a line, or null when the chunk has a line break that is not a
 * whole CRLF (Buffer.indexOf is a native scan: one call per line, not per byte).
 */
function lineStarts(chunk: Buffer, lastByte: number | false): number[] | null {
  const dots: number[] = [];
  if (chunk[0] === PERIOD && (lastByte === false || lastByte === LF)) dots.push(0);
  if (lastByte === CR || chunk[chunk.length - 1] === CR) return null;
  for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) {
    if (at === 0 || chunk[at - 1] !== CR) return null;
    if (chunk[at + 1] === PERIOD) dots.push(at + 1);
  }
  for (let at = chunk.indexOf(CR); at !== -1; at = chunk.indexOf(CR, at + 1)) {
    if (chunk[at + 1] !== LF) return null;
  }
  return dots;
}
