/**
 * SMTP replies as data. Parses what a server said (one line or several) into its reply code, its
 * enhanced status code when the server sent one, and its text, so that the bounce classifier and
 * the retry policy read one shape whether the reply came from our own client or from a DSN.
 *
 * Grammar: RFC 5321 §4.2 (`Reply-code [ "-" / SP textstring ] CRLF`, every line but the last has
 * "-" after the code). Enhanced status codes: RFC 2034 §4 (they open the text of every line) and
 * RFC 3463 §2 (`class.subject.detail`, class 2, 4 or 5, subject and detail of 1 to 3 digits).
 * This module never decides what a reply means; that is `bounce-classifier.ts`.
 */

/** One parsed SMTP reply. */
export interface SmtpReply {
  /** The three-digit reply code, e.g. 550. */
  readonly code: number;
  /** The RFC 3463 enhanced status code, e.g. "5.1.1", or null when the server sent none. */
  readonly enhanced: string | null;
  /** The text of each line, without the reply code and without the enhanced status code. */
  readonly lines: readonly string[];
  /** The lines joined with single spaces, for matching and for showing to a person. */
  readonly text: string;
}

/** An enhanced status code split into its three parts (RFC 3463 §2). */
export interface EnhancedStatus {
  readonly class: 2 | 4 | 5;
  readonly subject: number;
  readonly detail: number;
}

const replyLine = /^(\d{3})(?:([ -])(.*))?$/;
const enhancedPrefix = /^([245])\.(\d{1,3})\.(\d{1,3})(?=\s|$)\s*/;

/**
 * Parses an enhanced status code such as "5.1.1" (surrounding space and a trailing comment, as
 * DSN Status fields carry them, are allowed: "5.1.1 (user unknown)").
 *
 * @example parseEnhancedStatus('4.2.2') // { class: 4, subject: 2, detail: 2 }
 */
export function parseEnhancedStatus(text: string): EnhancedStatus | null {
  const match = enhancedPrefix.exec(text.trim());
  if (!match) return null;
  return { class: Number(match[1]) as 2 | 4 | 5, subject: Number(match[2]), detail: Number(match[3]) };
}

/**
 * Parses a reply as it came off the wire or out of nodemailer's `err.response` (lines joined by
 * "\n" or "\r\n", each with its code). Returns null when the first line has no reply code.
 * A line without a code (a broken server folding its text) is kept as more text.
 *
 * @example
 * parseSmtpReply('550-5.1.1 The email account that you tried to reach does not exist.\r\n550 5.1.1 Try again.')
 * // { code: 550, enhanced: '5.1.1', lines: ['The email account ...', 'Try again.'], text: '...' }
 */
export function parseSmtpReply(raw: string): SmtpReply | null {
  const rawLines = raw.split(/\r?\n/).filter((line) => line.trim() !== '');
  const first = rawLines[0] === undefined ? null : replyLine.exec(rawLines[0].trimEnd());
  if (!first) return null;
  let code = Number(first[1]);
  const texts: string[] = [];
  for (const line of rawLines) {
    const match = replyLine.exec(line.trimEnd());
    if (match) {
      code = Number(match[1]);
      texts.push(match[3] ?? '');
    } else {
      texts.push(line.trim());
    }
  }
  return fromTexts(code, texts);
}

/**
 * Builds a reply from a code and a text that may open with an enhanced status code, as a test
 * script or a synthetic failure writes it.
 *
 * @example smtpReply(452, '4.5.3 Too many recipients') // enhanced '4.5.3', text 'Too many recipients'
 */
export function smtpReply(code: number, text = ''): SmtpReply {
  return fromTexts(code, text.split(/\r?\n/));
}

/** Writes a reply back in wire form, one line per text line, without the final CRLF. */
export function formatSmtpReply(reply: SmtpReply): string {
  const lines = reply.lines.length > 0 ? reply.lines : [''];
  return lines
    .map((line, i) => {
      const separator = i < lines.length - 1 ? '-' : ' ';
      const enhanced = reply.enhanced === null ? '' : `${reply.enhanced} `;
      return `${reply.code}${separator}${enhanced}${line}`.trimEnd();
    })
    .join('\r\n');
}

function fromTexts(code: number, texts: readonly string[]): SmtpReply {
  // RFC 2034 §4: the enhanced code opens every line; take it from the first, strip it from all.
  const found = enhancedPrefix.exec(texts[0] ?? '');
  const enhanced = found ? `${found[1]}.${Number(found[2])}.${Number(found[3])}` : null;
  const lines = texts.map((text) => (enhanced === null ? text : text.replace(enhancedPrefix, '')).trim());
  return { code, enhanced, lines, text: lines.filter((line) => line !== '').join(' ') };
}

/** An error from nodemailer: `code` (ECONNECTION, EENVELOPE, ETLS, ...), the server's `response`. */
export interface SmtpError extends Error {
  code?: string;
  originalCode?: string;
  response?: string;
  responseCode?: number;
  command?: string;
  rejectedErrors?: SmtpError[];
  recipient?: string;
}
