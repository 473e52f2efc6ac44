/**
 * Quoted-printable (RFC 2045 §6.7) for the text parts of outgoing mail, in one pass over the
 * UTF-8 bytes into one preallocated buffer. nodemailer's encoder works on strings with regular
 * expressions and a second wrapping pass; for a 100 KB body that cost more than the DKIM signature
 * and most of the render's garbage. The output decodes to the same bytes.
 *
 * Line breaks (CRLF, a lone CR or a lone LF) become CRLF hard breaks: text/* bodies are CRLF in
 * canonical form (RFC 2045 §6.7 rule 4), and the bytes signed must be the bytes sent. Output lines
 * are at most 76 characters, soft breaks (`=` CRLF) included; an `=XX` triplet is never split,
 * nor is the encoding of one UTF-8 character; space and tab before a break are encoded, so no
 * line ends in white space (relaxed DKIM and SMTP relays would otherwise disagree about it).
 */

const MAX_LINE = 76;
const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const TAB = 0x09;
const EQUALS = 0x3d;

/** Byte classes of the encoder: what may stand for itself, white space, line breaks, the rest. */
const LITERAL = 0;
const WSP = 1;
const BREAK = 2;
const ESCAPE = 3;
const CLASS = new Uint8Array(256).map((_, byte) => {
  if (byte === CR || byte === LF) return BREAK;
  if (byte === SP || byte === TAB) return WSP;
  return byte >= 0x21 && byte <= 0x7e && byte !== EQUALS ? LITERAL : ESCAPE;
});
const HEX = Buffer.from('0123456789ABCDEF', 'latin1');

/** How many bytes the UTF-8 sequence starting with `lead` has (1 for ASCII and stray bytes). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

/** Whether the byte at `i` ends a line: the end of the input or a line break. */
function breaksAt(input: Uint8Array, i: number): boolean {
  return i >= input.length || CLASS[input[i] as number] === BREAK;
}

/** The most bytes `encodeQuotedPrintable` writes for `length` input bytes: all =XX, soft breaks. */
export function maxEncodedLength(length: number): number {
  return length * 3 + Math.ceil((length * 3) / 72) * 3 + 2;
}

/**
 * `into`, when given, must hold `maxEncodedLength(input.length)` bytes; the result is then a view
 * of it (a render worker reuses one scratch buffer instead of allocating three times the body).
 *
 * @example encodeQuotedPrintable(Buffer.from('Grüße\n')).toString() // 'Gr=C3=BC=C3=9Fe\r\n'
 */
export function encodeQuotedPrintable(input: Uint8Array, into?: Buffer): Buffer {
  const worst = maxEncodedLength(input.length);
  if (into !== undefined && into.length < worst) throw new RangeError('the output buffer is too small');
  const out = into ?? Buffer.allocUnsafe(worst);
  const length = input.length;
  let at = 0;
  let column = 0;
  let i = 0;
  while (i < length) {
    const byte = input[i] as number;
    const kind = CLASS[byte] as number;
    // The common case first: a character that stands for itself, well inside the line.
    if (kind === LITERAL && column < MAX_LINE - 1) {
      out[at++] = byte;
      column += 1;
      i += 1;
      continue;
    }
    if (kind === BREAK) {
      out[at++] = CR;
      out[at++] = LF;
      column = 0;
      i += byte === CR && input[i + 1] === LF ? 2 : 1;
      continue;
    }
    // One UTF-8 character's bytes stay on one line, so a reader that shows lines sees whole characters.
    let count = kind === ESCAPE ? sequenceLength(byte) : 1;
    if (i + count > length) count = 1;
    for (let k = 1; k < count; k++) {
      const continuation = input[i + k] as number;
      if (continuation < 0x80 || continuation > 0xbf) {
        count = 1;
        break;
      }
    }
    const endOfLine = breaksAt(input, i + count);
    // White space stands for itself unless it ends a line.
    const escaped = kind === ESCAPE || (kind === WSP && endOfLine);
    const width = escaped ? count * 3 : 1;
    // The last character of a line may use the 76th column: no soft break follows it.
    if (column + width > (endOfLine ? MAX_LINE : MAX_LINE - 1)) {
      out[at++] = EQUALS;
      out[at++] = CR;
      out[at++] = LF;
      column = 0;
    }
    if (escaped) {
      for (let k = 0; k < count; k++) {
        const value = input[i + k] as number;
        out[at++] = EQUALS;
        out[at++] = HEX[value >> 4] as number;
        out[at++] = HEX[value & 0x0f] as number;
      }
    } else {
      out[at++] = byte;
    }
    column += width;
    i += count;
  }
  return out.subarray(0, at);
}

/** What decides a text part's transfer encoding (see `compose.ts`). */
export interface TextStats {
  /** ASCII without control characters (tab aside), no line over 76 characters: sent as 7bit. */
  readonly plain: boolean;
  /** Latin letters. */
  readonly latin: number;
  /** 8-bit characters and control characters. */
  readonly other: number;
}

/**
 * nodemailer's rules, applied to UTF-8 bytes in one pass: characters are counted as it counts
 * them (one per UTF-8 lead byte, two for a 4-byte sequence, which is a surrogate pair to it).
 * Bodies come from JSON strings, so their UTF-8 is always well formed.
 */
export function textStats(bytes: Uint8Array): TextStats {
  let latin = 0;
  let other = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    latin += LATIN[byte] as number;
    other += OTHER[byte] as number;
  }
  // nodemailer does not look for long lines past 128 KB: it assumes there are some.
  const plain = other === 0 && bytes.length <= 128 * 1024 && longestLine(bytes) <= MAX_LINE;
  return { plain, latin, other };
}

/** Latin letters count 1. */
const LATIN = new Uint8Array(256).map((_, byte) =>
  (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) ? 1 : 0,
);
/** Control characters (tab and line breaks aside) count 1; UTF-8 lead bytes 1, or 2 for a surrogate pair. */
const OTHER = new Uint8Array(256).map((_, byte) => {
  if (byte >= 0xf0) return 2;
  if (byte >= 0xc0) return 1;
  return byte < 0x20 && byte !== TAB && byte !== CR && byte !== LF ? 1 : 0;
});

function longestLine(bytes: Uint8Array): number {
  let longest = 0;
  let column = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    column = byte === CR || byte === LF ? 0 : column + 1;
    if (column > longest) longest = column;
  }
  return longest;
}
