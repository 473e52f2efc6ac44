/**
 * DKIM signing for outgoing mail through a pool of worker threads (piscina), so the event loop
 * never does the RSA arithmetic. Each message is copied once into a buffer that is transferred
 * to a worker; only the DKIM-Signature lines come back and are put in front of the message.
 * The caller's buffer is never modified or detached, so a failed delivery can reuse it.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { Config } from '../platform/config/schema.js';
import type { DkimAlgorithm } from './keys.js';
import type { SignatureSpec, SignTask, SignTaskResult } from './sign-worker.js';

export interface SignRequest {
  /** d=, the domain whose key signs (for DMARC alignment, the From domain). */
  readonly domain: string;
  readonly selector: string;
  readonly privateKeyPem: string;
  /** Defaults to rsa-sha256; must match the key. */
  readonly algorithm?: DkimAlgorithm;
  /** A second signature with an ed25519 key (RFC 8463), under its own selector. */
  readonly ed25519?: { readonly selector: string; readonly privateKeyPem: string };
  /** The i= tag, e.g. the From address; its domain must be `domain` or below it. */
  readonly identity?: string;
  /** t=, defaults to now. */
  readonly signTime?: Date;
}

export interface DkimSigner {
  /** The message with its DKIM-Signature header(s) in front; rejects if no signature could be made. */
  sign(message: Buffer, request: SignRequest): Promise<Buffer>;
  /** Only the DKIM-Signature header lines (CRLF-terminated), for callers that stream the message. */
  signatureHeaders(message: Buffer, request: SignRequest): Promise<string>;
  /** Worker threads in the pool. */
  readonly threads: number;
  /** Finishes queued signatures, then stops the workers. */
  close(): Promise<void>;
}

export interface SignerOptions {
  /** Worker threads; 0 means one per CPU. */
  readonly workers: number;
}

// Relative to the compiled file: dist/src/dkim/signer.js loads dist/src/dkim/sign-worker.js.
const WORKER_FILE = fileURLToPath(new URL('./sign-worker.js', import.meta.url));

/**
 * The pool size for a configured worker count: 0 picks one per CPU; never fewer than one. On 2
 * CPUs, with the MX's CPU off the box (as in production), two render workers deliver ~20 % more
 * than one; one kept up with two only while the benchmark's own sink took 40 % of a CPU
 * (BENCHMARKS.md, "Delivery engine").
 */
export function workerCount(configured: number): number {
  return Math.max(1, configured > 0 ? configured : availableParallelism());
}

function specs(request: SignRequest): SignatureSpec[] {
  const identity = request.identity ? { identity: request.identity } : {};
  // The RSA signature goes on top: verifiers that check only one signature look at the first.
  const list: SignatureSpec[] = [
    {
      domain: request.domain,
      selector: request.selector,
      privateKeyPem: request.privateKeyPem,
      algorithm: request.algorithm ?? 'rsa-sha256',
      ...identity,
    },
  ];
  if (request.ed25519) {
    list.push({
      domain: request.domain,
      selector: request.ed25519.selector,
      privateKeyPem: request.ed25519.privateKeyPem,
      algorithm: 'ed25519-sha256',
      ...identity,
    });
  }
  return list;
}

/**
 * @example
 * const signer = createSigner({ workers: config.dkim.workers });
 * const signed = await signer.sign(raw, { domain: 'example.com', selector: 'ph202506k3x9', privateKeyPem });
 * await signer.close();
 */
export function createSigner(options: SignerOptions): DkimSigner {
  const threads = workerCount(options.workers);
  const pool = new Piscina<SignTask, SignTaskResult>({
    filename: WORKER_FILE,
    minThreads: threads,
    maxThreads: threads,
    // Signing is steady background work: keep the threads rather than pay start-up per burst.
    idleTimeout: Number.POSITIVE_INFINITY,
  });

  const signatureHeaders = async (message: Buffer, request: SignRequest): Promise<string> => {
    // One copy into a buffer of our own, then a transfer: the worker reads it without another copy.
    const transfer = new ArrayBuffer(message.length);
    new Uint8Array(transfer).set(message);
    const task: SignTask = {
      message: transfer,
      signTime: (request.signTime ?? new Date()).getTime(),
      signatures: specs(request),
    };
    const result = await pool.run(task, { transferList: [transfer] });
    return result.headers;
  };

  return {
    threads,
    signatureHeaders,
    async sign(message, request) {
      const headers = await signatureHeaders(message, request);
      return Buffer.concat([Buffer.from(headers, 'utf8'), message]);
    },
    async close() {
      await pool.close();
    },
  };
}

/** The signer `[dkim]` describes. */
export function createSignerFromConfig(config: Pick<Config, 'dkim'>): DkimSigner {
  return createSigner({ workers: config.dkim.workers });
}
