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
/** Latin letters count 1 (nodemailer's count). */
const LATIN = new Uint8Array(256).map((_, byte) =>
  (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) ? 1 : 0,
);
/**
 * Characters as nodemailer counts them in its strings: control characters (tab and line breaks
 * aside) 1, a UTF-8 lead byte 1, or 2 for a 4-byte sequence (a surrogate pair to it).
 */
const OTHER = new Uint8Array(256).map((_, byte) => {
  if (byte >= 0xf0) return 2;
  if (byte >= 0xc0) return 1;
  return byte < 0x20 && byte !== TAB && byte !== CR && byte !== LF ? 1 : 0;
});

/** How many bytes the UTF-8 sequence starting with `lead` has (1 for ASCII and stray bytes). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

/** The most bytes `encodeQuotedPrintable` writes for `length` input bytes: all =XX, soft breaks. */
export function maxEncodedLength(length: number): number {
  return length * 3 + Math.ceil((length * 3) / 72) * 3 + 2;
}

/**
 * What the encoder learns about its input and output on the way: for the transfer-encoding choice
 * (`compose.ts`), counted as nodemailer counts (see `OTHER` and `isPlain`), and for the DKIM body
 * hash.
 */
export interface TextScan {
  /** 8-bit characters and control characters. */
  other: number;
  /** The longest line in bytes, line breaks excluded. */
  longestLine: number;
  /**
   * Whether the output has a tab or two white space characters in a row, which relaxed body
   * canonicalization would fold (RFC 6376 §3.4.4). White space at a line end never stays as
   * itself, so without these the output is already canonical.
   */
  foldsWhitespace: boolean;
}

/**
 * `into`, when given, must hold `maxEncodedLength(input.length)` bytes; the result is then a view
 * of it (a render worker reuses one scratch buffer instead of allocating three times the body).
 * `scan`, when given, receives what the transfer-encoding choice needs, so that choice costs no
 * pass of its own.
 *
 * The loop copies runs of bytes that stand for themselves (white space too, unless a line break
 * follows it) up to the last column but one; everything else takes the careful path. At about a
 * nanosecond per byte it is twice as fast as a per-byte dispatch, which sent every space the
 * careful way.
 *
 * @example encodeQuotedPrintable(Buffer.from('Grüße\n')).toString() // 'Gr=C3=BC=C3=9Fe\r\n'
 */
export function encodeQuotedPrintable(input: Uint8Array, into?: Buffer, scan?: TextScan): Buffer {
  const worst = maxEncodedLength(input.length);
  if (into !== undefined && into.length < worst) throw new RangeError('the output buffer is too small');
  const out = into ?? Buffer.allocUnsafe(worst);
  const length = input.length;
  let at = 0;
  let column = 0;
  let i = 0;
  let other = 0;
  let longestLine = 0;
  let folds = false;
  let lineStart = 0;
  while (i < length) {
    // A run of bytes that stand for themselves, as far as the line allows without a soft break.
    if (column < MAX_LINE - 1) {
      const end = Math.min(length, i + (MAX_LINE - 1 - column));
      const start = i;
      while (i < end) {
        const byte = input[i] as number;
        const kind = CLASS[byte] as number;
        if (kind !== LITERAL) {
          // White space stands for itself unless it ends a line (then it is encoded, below).
          if (kind !== WSP || i + 1 >= length || CLASS[input[i + 1] as number] === BREAK) break;
          if (byte === TAB || (at > 0 && out[at - 1] === SP)) folds = true;
        }
        out[at++] = byte;
        i += 1;
      }
      column += i - start;
      if (i >= length) break;
    }
    const byte = input[i] as number;
    const kind = CLASS[byte] as number;
    if (kind === BREAK) {
      longestLine = Math.max(longestLine, i - lineStart);
      out[at++] = CR;
      out[at++] = LF;
      column = 0;
      i += byte === CR && input[i + 1] === LF ? 2 : 1;
      lineStart = i;
      continue;
    }
    other += OTHER[byte] as number;
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
    const endOfLine = i + count >= length || CLASS[input[i + count] as number] === BREAK;
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
      if (kind === WSP && (byte === TAB || (at > 0 && out[at - 1] === SP))) folds = true;
      out[at++] = byte;
    }
    column += width;
    i += count;
  }
  if (scan !== undefined) {
    scan.other = other;
    scan.longestLine = Math.max(longestLine, length - lineStart);
    scan.foldsWhitespace = folds;
  }
  return out.subarray(0, at);
}

/**
 * nodemailer's rule for sending a text part as 7bit: ASCII without control characters (tab
 * aside), no line over 76 characters. It does not look for long lines past 128 KB: it assumes
 * there are some.
 */
export function isPlain(bytes: Uint8Array, scan: TextScan): boolean {
  return scan.other === 0 && bytes.length <= 128 * 1024 && scan.longestLine <= MAX_LINE;
}

/**
 * Whether the parts hold more Latin letters than `limit`: nodemailer's choice of quoted-printable
 * over base64 (more Latin letters than other characters). Stops counting once past the limit,
 * which for Latin text is within the first few hundred bytes.
 */
export function latinLettersExceed(parts: readonly Uint8Array[], limit: number): boolean {
  let latin = 0;
  for (const bytes of parts) {
    for (let i = 0; i < bytes.length; i++) {
      latin += LATIN[bytes[i] as number] as number;
      if (latin > limit) return true;
    }
  }
  return false;
}
