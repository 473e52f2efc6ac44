/**
 * The render task, run by piscina on a worker thread: compose the message (MailComposer) and
 * DKIM-sign it (RFC 6376, relaxed/relaxed, mailauth), so that neither the MIME encoding nor the
 * RSA arithmetic ever runs on the event loop. Only plain fields go in; the finished bytes are
 * written into the task's slot of shared memory (message-slab.ts), or moved back in a buffer of
 * their own, already dot-stuffed for DATA so the event loop only writes them.
 *
 * A delivery's task first looks for the message as it was rendered at admission (message_raw,
 * prerender.ts), or a broadcast's as it was prepared before its send time (broadcast_renderings,
 * broadcasts/preparation.ts), and sends that when it was signed with the same keys.
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
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { SIGNED_HEADERS } from '../../dkim/sign-worker.js';
import { type ComposeFields, composeMessage, SIGNATURE_HEADROOM, splitHeaderBody } from './compose.js';
import { discardBuffer } from './discard-buffer.js';
import { stuffDots } from './dot-stuffing.js';
import { type SlabLayout, slotView } from './message-slab.js';
import { type BodyFacts, relaxedBodyHash } from './relaxed-body.js';
import {
  CONTENT_QUERY,
  type MessageContent,
  PREPARED_QUERY,
  RAW_QUERY,
  type RawMessage,
} from './worker-queries.js';
import { openWorkerReader, type WorkerAccess, type WorkerReader } from '../../platform/db/worker-reader.js';
import type { RenderTracking } from '../../tracking/render-input.js';

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
  /** The identity of `dkim`'s keys (signing-identity.ts), or UNSIGNED; what a stored rendering must match. */
  readonly signing?: string;
  /**
   * Send the rendering stored at admission (message_raw) when it was made with the same keys
   * (`signing`) instead of composing the message again. A delivery sets it; the prerender stage,
   * which makes that rendering, does not.
   */
  readonly reuse?: boolean;
  /**
   * A marketing message: a broadcast's, whose bodies are written from its broadcast's content
   * (no stored bodies to look for first) when no rendering prepared ahead was found.
   */
  readonly marketing?: boolean;
  /**
   * The tracking step's input (tracking-step.ts): the pixel and tracked links are put into the
   * HTML before it is composed and signed. Null or absent: the HTML is sent as submitted.
   */
  readonly tracking?: RenderTracking | null;
  /** The slot of the shared slab (message-slab.ts) to write the message into, set by the renderer. */
  readonly slot?: number | null;
}

/**
 * Where the finished message is: in the task's slot, `offset` bytes in and `length` long, or
 * moved over in a buffer of its own (`bytes`: no slot, or the message did not fit in it). `size`
 * is the message's size as SIZE= declares it (RFC 1870 §3: the octets before dot-stuffing).
 */
export type RenderOutput =
  | { readonly offset: number; readonly length: number; readonly size: number }
  | { readonly bytes: Uint8Array; readonly size: number };

const CANONICALIZATION = 'relaxed/relaxed';

/**
 * The finished message in its DATA form (dot-stuffed, `stuffDots`), DKIM-Signature lines first,
 * and its size before stuffing.
 */
export default async function render(task: RenderTask): Promise<RenderOutput> {
  const stored = task.reuse === true && task.messageId !== null ? await storedRendering(task) : undefined;
  if (stored !== undefined) return stored;
  const bodies =
    task.messageId === null
      ? (task.bodies ?? { html: null, text: null })
      : await readContent(task.messageId, task.marketing === true);
  const slot = task.slot === undefined || task.slot === null ? null : slotOf(task.slot);
  const html =
    task.tracking && bodies.html !== null ? await trackedBody(bodies.html, task.tracking) : bodies.html;
  const { message: composed, foldsWhitespace } = composeMessage(
    { ...task.fields, html, text: bodies.text },
    slot ?? undefined,
  );
  // Composed messages have CRLF line breaks only, and the composer knows their white space: the
  // body hash need not search the body for either.
  const facts = { crlfOnly: true, foldsWhitespace };
  const signed =
    task.dkim === null || task.dkim.keys.length === 0
      ? composed
      : prepend(
          Buffer.from(await sign(composed, task.dkim, new Date(task.signTime), facts), 'latin1'),
          composed,
        );
  const inSlot = slot !== null && signed.buffer === slot.buffer;
  const room = inSlot ? slot.byteOffset + slot.length - (signed.byteOffset + signed.length) : 0;
  const wire = stuffDots(signed, room);
  if (inSlot && wire.buffer === slot.buffer)
    return { offset: wire.byteOffset - slot.byteOffset, length: wire.length, size: signed.length };
  return transfer(wire, signed.length);
}

let tracking: typeof import('../../tracking/render-input.js') | undefined;

/**
 * The HTML after the tracking step. Loaded with the first tracked message, so a worker that
 * renders none never loads the HTML tokenizer (a worker's start delays its first render).
 */
async function trackedBody(html: string | Uint8Array, input: RenderTracking): Promise<string> {
  tracking ??= await import('../../tracking/render-input.js');
  return tracking.trackedHtml(html, input);
}

/** The signature lines in the room the composer left in front of the message (no copy), else a new buffer. */
function prepend(signatures: Buffer, composed: Buffer): Buffer {
  if (signatures.length > SIGNATURE_HEADROOM) {
    const joined = Buffer.allocUnsafeSlow(signatures.length + composed.length);
    composed.copy(joined, signatures.copy(joined, 0));
    return joined;
  }
  const signed = Buffer.from(
    composed.buffer,
    composed.byteOffset - signatures.length,
    signatures.length + composed.length,
  );
  signatures.copy(signed, 0);
  return signed;
}

/** This worker's view of a slot of the shared slab (given in workerData). */
function slotOf(index: number): Buffer {
  const slab = (workerData as { slab?: SlabLayout } | null)?.slab;
  if (!slab) throw new Error('the render worker was started without a message slab');
  return slotView(slab, index);
}

/**
 * The DKIM-Signature header lines (CRLF-terminated) for `message`. Throws when none could be made.
 * `facts` are what the caller vouches for about the message's body (`relaxedBodyBytes`).
 */
export async function sign(
  message: Buffer,
  dkim: RenderDkim,
  signTime: Date,
  facts: BodyFacts = {},
): Promise<string> {
  const signatureData = dkim.keys.map((key) => ({
    signingDomain: dkim.domain,
    selector: key.selector,
    privateKey: key.privateKeyPem,
    algorithm: key.algorithm,
  }));
  const { header, body } = splitHeaderBody(message);
  const bodyHash = relaxedBodyHash(body, facts);
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

let connection: WorkerReader | null = null;

/** This worker's own read-only way into the store (platform/db/worker-reader.ts), opened on first use. */
function database(): WorkerReader {
  if (connection === null) {
    const access = (workerData as { access?: WorkerAccess } | null)?.access;
    if (!access) throw new Error('the render worker was started without access to the store');
    connection = openWorkerReader(access);
  }
  return connection;
}

/**
 * The message as rendered at admission (a broadcast's: as prepared before its send time), when
 * that was signed with the task's keys: copied into the task's slot, or moved over in a buffer of
 * its own when it does not fit.
 */
async function storedRendering(task: RenderTask): Promise<RenderOutput | undefined> {
  const query = task.marketing === true ? PREPARED_QUERY : RAW_QUERY;
  const row = await database().first<RawMessage>(query, [task.messageId]);
  if (row === undefined || row.signing !== task.signing) return undefined;
  const slot = task.slot === undefined || task.slot === null ? null : slotOf(task.slot);
  const length = row.bytes.length;
  const fits = slot !== null && length <= slot.length;
  // A buffer of its own (never a view into a shared pool) may be moved whole.
  const target = fits ? slot : Buffer.allocUnsafeSlow(length);
  row.bytes.copy(target, 0);
  // This thread makes little other garbage: its collector would let such blobs pile up (~90 MB
  // more peak RSS with two workers in the delivery benchmark).
  discardBuffer(row.bytes);
  return fits ? { offset: 0, length, size: row.size } : transfer(target, row.size);
}

/** A message's bodies: UTF-8 bytes as stored, or a string written here. */
interface Bodies {
  readonly html: string | Uint8Array | null;
  readonly text: string | Uint8Array | null;
}

let broadcastBodies: ((messageId: string) => Promise<Bodies | undefined>) | null = null;

/**
 * Reads the bodies on this worker's own read-only connection. A broadcast's message has none
 * stored: its bodies are written here from the broadcast's content and the contact's values
 * (broadcasts/render-content.ts, loaded with the first such message). A marketing message is
 * looked for there first: one query per message instead of two.
 */
async function readContent(messageId: string, marketing: boolean): Promise<Bodies> {
  const stored = async () => database().first<MessageContent>(CONTENT_QUERY, [messageId]);
  const written = async () => {
    broadcastBodies ??= (await import('../../broadcasts/render-content.js')).broadcastBodyReader(database());
    return broadcastBodies(messageId);
  };
  const bodies = marketing
    ? ((await written()) ?? (await stored()))
    : ((await stored()) ?? (await written()));
  if (bodies === undefined) throw new Error(`message ${messageId} has no stored body (deleted?)`);
  return bodies;
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

/**
 * Moves the message's buffer to the caller (piscina's Transferable: its buffer is transferred, not
 * copied, and `{ bytes, size }` is what the caller receives). Every buffer a render makes is its
 * own (`allocUnsafeSlow`, never a view into Node's shared pool), so it may go whole; a message left
 * in shared memory is copied out.
 */
function transfer(message: Buffer, size: number): RenderOutput {
  const bytes = message.buffer instanceof SharedArrayBuffer ? new Uint8Array(message) : message;
  const output: RenderOutput = { bytes, size };
  return move({
    [transferableSymbol]: bytes.buffer,
    [valueSymbol]: output,
  }) as unknown as RenderOutput;
}
