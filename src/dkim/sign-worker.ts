/**
 * The DKIM signing task, run by piscina on a worker thread (never on the event loop: one RSA-2048
 * signature costs about a millisecond of CPU). It takes the message bytes by transfer and returns
 * only the DKIM-Signature header lines, so nothing larger than the message crosses threads.
 * Signing follows RFC 6376 with relaxed/relaxed canonicalization (§3.4); mailauth does the work.
 */
import type { DKIMSignOptions } from 'mailauth';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import type { DkimAlgorithm } from './keys.js';

/**
 * Header fields a signature covers when present (RFC 6376 §5.4.1). Fields absent from a message
 * are left out of h=; mailauth signs every instance of a listed field that is present.
 */
export const SIGNED_HEADERS: readonly string[] = [
  'from',
  'sender',
  'reply-to',
  'to',
  'cc',
  'subject',
  'date',
  'message-id',
  'in-reply-to',
  'references',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'list-id',
  'list-unsubscribe',
  'list-unsubscribe-post',
  'feedback-id',
];

export interface SignatureSpec {
  readonly domain: string;
  readonly selector: string;
  readonly privateKeyPem: string;
  readonly algorithm: DkimAlgorithm;
  /** The i= tag; its domain must be `domain` or a subdomain of it. */
  readonly identity?: string;
}

export interface SignTask {
  /** The whole message, transferred (the sender's copy is detached). */
  readonly message: ArrayBuffer;
  /** t= in milliseconds since the epoch. */
  readonly signTime: number;
  /** Signatures in the order their headers appear, top first. */
  readonly signatures: readonly SignatureSpec[];
}

export interface SignTaskResult {
  /** DKIM-Signature header lines, each ending in CRLF, to put in front of the message. */
  readonly headers: string;
}

type SharedSignOptions = Omit<DKIMSignOptions, 'signingDomain' | 'selector' | 'privateKey'>;

export default async function signTask(task: SignTask): Promise<SignTaskResult> {
  const options: SharedSignOptions = {
    canonicalization: 'relaxed/relaxed',
    headerList: [...SIGNED_HEADERS],
    signTime: new Date(task.signTime),
    // Refuse what RFC 8301 and RFC 6376 forbid rather than sign something verifiers reject.
    strict: true,
    signatureData: task.signatures.map((spec) => ({
      signingDomain: spec.domain,
      selector: spec.selector,
      privateKey: spec.privateKeyPem,
      algorithm: spec.algorithm,
      ...(spec.identity ? { identity: spec.identity } : {}),
    })),
  };
  // mailauth's typings require a top-level key, but the signer reads only signatureData.
  const result = await dkimSign(Buffer.from(task.message), options as DKIMSignOptions);
  if (result.errors.length > 0 || result.signatures === '') {
    const reasons = result.errors.map(
      (e) => `d=${e.signingDomain ?? '?'} s=${e.selector ?? '?'}: ${e.err?.message ?? 'unknown error'}`,
    );
    throw new Error(`DKIM signing failed: ${reasons.join('; ') || 'no signature was produced'}`);
  }
  return { headers: result.signatures };
}
