/**
 * Routed mail that mailparser refuses (more than 1,000 MIME parts, a header block over 1 MB: its
 * own limits against hostile input) was accepted with 250 all the same, so it must still be
 * stored: with the top-level header fields that can be read (from, to, subject, threading), no
 * text or html, and the whole message as one attachment (`original.eml`, `message/rfc822`),
 * scanned by ClamAV like any other before it can be downloaded. `parse_error` says why.
 *
 * It never throws: a message whose header cannot be read either is stored with empty fields.
 */
import { type ParsedInbound, parseInbound } from './parse.js';

/** Bytes of the top-level header block read for the fallback. */
const MAX_HEAD_BYTES = 256 * 1024;
/** Header fields kept for the fallback. */
const MAX_HEADERS = 1000;

/** The message parsed, or the fallback when mailparser refuses it. */
export async function readInbound(raw: Buffer): Promise<ParsedInbound> {
  try {
    return await parseInbound(raw);
  } catch (error) {
    return fallbackInbound(raw, error instanceof Error ? error.message : String(error));
  }
}

export async function fallbackInbound(raw: Buffer, reason: string): Promise<ParsedInbound> {
  return { ...(await headerFieldsOf(raw, MAX_HEAD_BYTES)), parseError: reason };
}

/**
 * What can be read of `raw` without parsing its body: the top-level header fields (at most
 * `maxHeadBytes` of the header block are read, at most `MAX_HEADERS` fields kept), no text or html,
 * and the whole message as one attachment, `original.eml`. Never throws.
 */
export async function headerFieldsOf(raw: Buffer, maxHeadBytes: number): Promise<ParsedInbound> {
  const original = {
    filename: 'original.eml',
    contentType: 'message/rfc822',
    contentId: null,
    disposition: 'attachment',
    content: raw,
  };
  let head: ParsedInbound | undefined;
  try {
    head = await parseInbound(topHeader(raw, maxHeadBytes));
  } catch {
    head = undefined;
  }
  return {
    fromHeader: head?.fromHeader ?? '',
    fromEmail: head?.fromEmail ?? '',
    to: head?.to ?? [],
    cc: head?.cc ?? [],
    replyTo: head?.replyTo ?? [],
    subject: head?.subject ?? '',
    text: null,
    html: null,
    headers: (head?.headers ?? []).slice(0, MAX_HEADERS),
    date: head?.date ?? null,
    messageId: head?.messageId ?? null,
    inReplyTo: head?.inReplyTo ?? null,
    references: head?.references ?? [],
    attachments: [original],
    parseError: null,
  };
}

/** The top-level header block alone (cut at a line end when it is too long), as a message without a body. */
function topHeader(raw: Buffer, maxHeadBytes: number): Buffer {
  const window = raw.subarray(0, maxHeadBytes);
  const text = window.toString('latin1');
  const end = /\r?\n\r?\n/.exec(text);
  const head = end ? text.slice(0, end.index) : text.slice(0, Math.max(0, text.lastIndexOf('\n')));
  return Buffer.from(`${head}\r\n\r\n`, 'latin1');
}
