/**
 * The render task, run by piscina on a worker thread: compose the message (MailComposer) and
 * DKIM-sign it (RFC 6376, relaxed/relaxed, mailauth), so that neither the MIME encoding nor the
 * RSA arithmetic ever runs on the event loop. Only plain fields go in and the finished bytes come
 * back by transfer (no copy).
 *
 * Signing: the body hash is computed natively (`relaxed-body.ts`); mailauth's DkimSigner is given
 * that hash and the parsed header section and signs the headers only. A body the fast hasher
 * refuses goes through mailauth's streaming `dkimSign` instead, which gives the same answer.
 */
// First: it must patch mailauth before mailauth's DKIM signer loads.
import './mailauth-key-cache.js';
import { DkimSigner } from 'mailauth/lib/dkim/dkim-signer.js';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { parseHeaders } from 'mailauth/lib/tools.js';
import { workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { move } from 'piscina';
import { SIGNED_HEADERS } from '../dkim/sign-worker.js';
import { type ComposeFields, composeMessage, headroomOf, splitHeaderBody } from './compose.js';
import { relaxedBodyHash } from './relaxed-body.js';
import { contentReader, type MessageContent } from './store.js';

/** One key a message is signed with; `algorithm` must match the key. */
export interface RenderKey {
  readonly selector: string;
  readonly privateKeyPem: string;
  readonly algorithm: 'rsa-sha256' | 'ed25519-sha256';
}

export interface RenderDkim {
  /** d=, the From domain (DMARC alignment). */
  readonly domain: string;
  /** Signatures in header order, top first (RSA first: verifiers that check one look at the top). */
  readonly keys: readonly RenderKey[];
}

export interface RenderTask {
  /** Everything but the bodies, which the worker reads from the store itself (see `message`). */
  readonly fields: Omit<ComposeFields, 'html' | 'text'>;
  /** The message whose html and text bodies to read; null to use `bodies` instead. */
  readonly messageId: string | null;
  /** Bodies given inline (tools and benchmarks without a store). */
  readonly bodies?: { readonly html: string | null; readonly text: string | null };
  /** Null sends the message unsigned (no key for the From domain). */
  readonly dkim: RenderDkim | null;
  /** t=, milliseconds since the epoch. */
  readonly signTime: number;
}

const CANONICALIZATION = 'relaxed/relaxed';

/** The finished message, DKIM-Signature lines first (moved to the caller, not copied). */
export default async function render(task: RenderTask): Promise<Uint8Array> {
  const bodies =
    task.messageId === null ? (task.bodies ?? { html: null, text: null }) : readContent(task.messageId);
  const composed = await composeMessage({ ...task.fields, html: bodies.html, text: bodies.text });
  if (task.dkim === null || task.dkim.keys.length === 0) return transfer(composed);
  const signatures = Buffer.from(await sign(composed, task.dkim, new Date(task.signTime)), 'latin1');
  // The composer left room in front of the message: the signature lines go there, no copy.
  if (signatures.length <= headroomOf(composed)) {
    const start = composed.byteOffset - signatures.length;
    const signed = Buffer.from(composed.buffer, start, signatures.length + composed.length);
    signatures.copy(signed, 0);
    return transfer(signed);
  }
  return transfer(Buffer.concat([signatures, composed]));
}

/** The DKIM-Signature header lines (CRLF-terminated) for `message`. Throws when none could be made. */
export async function sign(message: Buffer, dkim: RenderDkim, signTime: Date): Promise<string> {
  const signatureData = dkim.keys.map((key) => ({
    signingDomain: dkim.domain,
    selector: key.selector,
    privateKey: key.privateKeyPem,
    algorithm: key.algorithm,
  }));
  const { header, body } = splitHeaderBody(message);
  const bodyHash = relaxedBodyHash(body);
  if (bodyHash === null) {
    const streamed = await dkimSign(message, {
      canonicalization: CANONICALIZATION,
      headerList: [...SIGNED_HEADERS],
      signTime,
      strict: true,
      signatureData,
    } as unknown as Parameters<typeof dkimSign>[1]);
    return checked(streamed.signatures, streamed.errors);
  }
  const signer = new DkimSigner({
    canonicalization: CANONICALIZATION,
    headerList: [...SIGNED_HEADERS],
    signTime,
    // Refuse what RFC 8301 and RFC 6376 forbid rather than sign something verifiers reject.
    strict: true,
    signatureData,
    bodyHash,
    headers: parseHeaders(header),
  });
  await signer.finalize();
  const lines = signer.signatureHeaders.length > 0 ? `${signer.signatureHeaders.join('\r\n')}\r\n` : '';
  return checked(lines, signer.errors);
}

let reader: ((messageId: string) => MessageContent | undefined) | null = null;

/** Reads the bodies on this worker's own read-only connection, opened on first use. */
function readContent(messageId: string): MessageContent {
  if (reader === null) {
    const file = (workerData as { databaseFile?: string } | null)?.databaseFile;
    if (!file) throw new Error('the render worker was started without a database file');
    reader = contentReader(new SQLite(file, { readonly: true, fileMustExist: true }));
  }
  const content = reader(messageId);
  if (content === undefined) throw new Error(`message ${messageId} has no stored body (deleted?)`);
  return content;
}

function checked(
  signatures: string,
  errors: readonly { signingDomain?: string; selector?: string; err?: Error }[],
): string {
  if (errors.length > 0 || signatures === '') {
    const reasons = errors.map(
      (e) => `d=${e.signingDomain ?? '?'} s=${e.selector ?? '?'}: ${e.err?.message ?? 'unknown'}`,
    );
    throw new Error(`DKIM signing failed: ${reasons.join('; ') || 'no signature was produced'}`);
  }
  return signatures;
}

function transfer(message: Buffer): Uint8Array {
  // A small Buffer may be a view into Node's shared pool, which must not be transferred away; a
  // composed message's buffer is its own (the free bytes in front of it go along).
  const whole = message.byteOffset === 0 && message.byteLength === message.buffer.byteLength;
  const own = whole || headroomOf(message) > 0 ? message : new Uint8Array(message);
  return move(own) as Uint8Array;
}
