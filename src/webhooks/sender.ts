/**
 * Sends one webhook request and reports what happened, never throwing. The host is resolved here,
 * every address is checked against the SSRF policy (address-policy.ts), and the socket connects
 * to the address that was checked, through a pinned `lookup`, so a DNS answer that changes between
 * the check and the connect (rebinding) cannot redirect the request. TLS still verifies the
 * certificate against the URL's host name. Redirects are not followed: a 3xx is a failure.
 *
 * What is kept of the response is bounded: the status, an allowlist of headers (never cookies or
 * credentials), and the first 2 KB of the body; the rest is not read.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { forbiddenReason } from './address-policy.js';

export const RESPONSE_BODY_LIMIT = 2048;
const SAFE_HEADERS = ['content-type', 'content-length', 'date', 'retry-after'] as const;

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Resolves a host name to its addresses (`host-lookup.ts`; the system resolver when none is given). */
export type HostLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  readonly allowPrivate: boolean;
  /** Aborts the request (the dispatcher stopping); the result then says `aborted`. */
  readonly signal?: AbortSignal;
}

export interface WebhookResult {
  readonly requestedAt: number;
  readonly durationMs: number;
  /** The HTTP status, or null when no response arrived. */
  readonly status: number | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  /** Why no usable response arrived: refused target, DNS, connection, TLS, timeout. */
  readonly error: string | null;
}

const systemLookup: HostLookup = async (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function safeHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SAFE_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** A `lookup` that always answers with the address already checked. */
function pinned(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/** Picks the address to connect to, or says why the host may not be reached. */
async function resolveTarget(
  hostname: string,
  allowPrivate: boolean,
  lookup: HostLookup,
): Promise<ResolvedAddress | string> {
  const literal = isIP(hostname);
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = literal ? [{ address: hostname, family: literal }] : await lookup(hostname);
  } catch (error) {
    return `could not resolve ${hostname}: ${describe(error)}`;
  }
  const first = addresses[0];
  if (!first) return `could not resolve ${hostname}: no addresses`;
  if (!allowPrivate) {
    // Any forbidden address refuses the host: a mixed answer is how rebinding attacks start.
    for (const { address } of addresses) {
      const why = forbiddenReason(address);
      if (why) {
        return `refused: ${hostname} resolves to ${address} (${why}); private targets need webhooks.allow_private_targets`;
      }
    }
  }
  return first;
}

/**
 * `ca`: the certificates trusted for https:// targets (the system's plus `webhooks.tls_ca_file`),
 * or undefined for Node's defaults.
 */
export function createWebhookSender(options: { lookup?: HostLookup; ca?: string } = {}) {
  const lookup = options.lookup ?? systemLookup;
  const tlsTrust = options.ca === undefined ? {} : { ca: options.ca };

  return async function send(request: WebhookRequest): Promise<WebhookResult> {
    const requestedAt = Date.now();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failure = (error: string): WebhookResult => ({
      requestedAt,
      durationMs: elapsed(),
      status: null,
      headers: {},
      body: null,
      error,
    });

    if (request.signal?.aborted) return failure('aborted');
    const url = new URL(request.url);
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`timed out after ${request.timeoutMs} ms`), request.timeoutMs);
      request.signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
    });
    try {
      const target = await Promise.race([resolveTarget(hostname, request.allowPrivate, lookup), deadline]);
      if (typeof target === 'string') return failure(target);
      return await new Promise<WebhookResult>((resolve) => {
        let settled = false;
        const settle = (result: WebhookResult) => {
          if (settled) return;
          settled = true;
          resolve(result);
        };
        const transport = url.protocol === 'https:' ? https : http;
        const req = transport.request({
          protocol: url.protocol,
          hostname,
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          agent: false,
          lookup: pinned(target),
          ...(url.protocol === 'https:' && !isIP(hostname) ? { servername: hostname } : {}),
          ...(url.protocol === 'https:' ? tlsTrust : {}),
        });
        let response:
          | { status: number; headers: Record<string, string>; chunks: Buffer[]; size: number }
          | undefined;
        const finishWithResponse = () => {
          if (!response) return;
          const body = Buffer.concat(response.chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
          settle({
            requestedAt,
            durationMs: elapsed(),
            status: response.status,
            headers: response.headers,
            body,
            error: null,
          });
        };
        void deadline.then((message) => {
          if (response) finishWithResponse();
          else settle(failure(message));
          req.destroy();
        });
        req.on('response', (res) => {
          response = { status: res.statusCode ?? 0, headers: safeHeaders(res.headers), chunks: [], size: 0 };
          const current = response;
          res.on('data', (chunk: Buffer) => {
            if (current.size < RESPONSE_BODY_LIMIT) current.chunks.push(chunk);
            current.size += chunk.length;
            if (current.size >= RESPONSE_BODY_LIMIT) {
              finishWithResponse();
              res.destroy();
            }
          });
          res.on('end', finishWithResponse);
          res.on('error', finishWithResponse);
          res.on('close', finishWithResponse);
        });
        req.on('error', (error) => {
          if (response) finishWithResponse();
          else settle(failure(describe(error)));
        });
        req.end(request.body);
      });
    } finally {
      clearTimeout(timer);
    }
  };
}

export type WebhookSender = ReturnType<typeof createWebhookSender>;
