/**
 * The attachment scanner: hands bytes to ClamAV's clamd (TCP, or the Unix socket when configured)
 * and answers with a closed set of outcomes: `clean`, `infected` (with the signature's name) or
 * `error` (clamd unreachable, too slow, or refusing the stream).
 *
 * It never throws and never waits longer than `clamav.timeout_ms` for a scan. A failed call drops
 * the connection state, so the next call reconnects: the inbound capability keeps an attachment
 * `pending` after an `error` and scans it again once clamd is back. `close()` (a stop) ends the
 * scans in flight at once and destroys their connections, whatever clamd does. It never spawns a
 * ClamAV binary and never decides what happens to an infected attachment.
 *
 * @example
 * const scanner = createScanner(config.clamav);
 * const outcome = await scanner.scan(attachmentBytes);
 * if (outcome.state === 'infected') reject(outcome.signature);
 */
import { createConnection, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import NodeClam from 'clamscan';
import type { Config } from '../../platform/config/schema.js';

/** Where clamd is and how long a scan may take (the rest of `[clamav]` is the inbound capability's). */
export type ClamavConfig = Pick<Config['clamav'], 'host' | 'port' | 'socket' | 'timeout_ms'>;

export type ScanOutcome =
  | { readonly state: 'clean' }
  | { readonly state: 'infected'; readonly signature: string }
  | { readonly state: 'error'; readonly reason: string };

export interface Scanner {
  /** Scans one attachment's decoded bytes. Resolves within `timeout_ms`; never rejects. */
  scan(bytes: Buffer): Promise<ScanOutcome>;
  /** True when clamd answers PING within a couple of seconds; never rejects. */
  ping(): Promise<boolean>;
  /**
   * Ends the scanner for good (a stop): scans in flight resolve at once as an `error` and pings as
   * false, their clamd connections destroyed; later calls answer the same without connecting.
   */
  close(): void;
}

export type ScannerHealth = 'ok' | 'degraded';

/** A health check must answer fast even when a scan may take much longer. */
const PING_TIMEOUT_MS = 2_000;

const CLEAN: ScanOutcome = { state: 'clean' };
const CLOSED_REASON = 'the scanner was closed (the server is stopping)';

export function createScanner(config: Readonly<ClamavConfig>): Scanner {
  const target = config.socket ? `unix:${config.socket}` : `${config.host}:${config.port}`;
  let ready: Promise<NodeClam> | undefined;
  const closing = new AbortController();
  // Every clamd connection open now, of this connection state or an abandoned one.
  const sockets = new Set<Socket>();

  // clamscan's init() pings clamd and rejects when it is down; it is retried on the next call.
  const connect = (): Promise<NodeClam> => {
    if (!ready) {
      const clam = new NodeClam();
      trackSockets(clam, config, sockets, closing.signal);
      ready = clam.init(clamscanOptions(config));
    }
    return ready;
  };
  const forget = (failed: Promise<NodeClam>): void => {
    if (ready === failed) ready = undefined;
  };

  const scanWith = async (attempt: Promise<NodeClam>, bytes: Buffer): Promise<ScanOutcome> => {
    try {
      const clam = await attempt;
      return toOutcome(await clam.scanStream(Readable.from([bytes])));
    } catch (error) {
      forget(attempt);
      return { state: 'error', reason: `clamd at ${target}: ${describe(error)}` };
    }
  };

  const pingWith = async (attempt: Promise<NodeClam>): Promise<boolean> => {
    try {
      const socket = await (await attempt).ping();
      socket.end();
      return true;
    } catch {
      forget(attempt);
      return false;
    }
  };

  return {
    scan(bytes) {
      // clamscan sends nothing but a terminator for zero bytes, which clamd rejects; no signature
      // can match an empty attachment anyway.
      if (bytes.length === 0) return Promise.resolve(CLEAN);
      const closed: ScanOutcome = { state: 'error', reason: CLOSED_REASON };
      if (closing.signal.aborted) return Promise.resolve(closed);
      const attempt = connect();
      // A clamd that accepts and then stays silent can leave clamscan waiting forever: give up on
      // that connection state as well, so that the next call starts afresh. The abort is raced
      // inside the deadline, so that a closed scanner leaves no timer behind.
      const scanned = unlessAborted(scanWith(attempt, bytes), closing.signal, closed);
      return withDeadline(scanned, config.timeout_ms, () => {
        forget(attempt);
        return { state: 'error', reason: `clamd at ${target} did not answer within ${config.timeout_ms} ms` };
      });
    },
    ping() {
      if (closing.signal.aborted) return Promise.resolve(false);
      const attempt = connect();
      const pinged = unlessAborted(pingWith(attempt), closing.signal, false);
      return withDeadline(pinged, Math.min(PING_TIMEOUT_MS, config.timeout_ms), () => {
        forget(attempt);
        return false;
      });
    },
    close() {
      closing.abort();
      // Without an error: clamscan would print one to stderr; the calls resolve through the abort.
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
  };
}

/** The ClamAV line of `/health`: `ok` while clamd answers PING, `degraded` while it does not. */
export async function clamavHealth(scanner: Pick<Scanner, 'ping'>): Promise<ScannerHealth> {
  return (await scanner.ping()) ? 'ok' : 'degraded';
}

function clamscanOptions(config: Readonly<ClamavConfig>): NodeClam.Options {
  const where = config.socket ? { socket: config.socket } : { host: config.host, port: config.port };
  return {
    preference: 'clamdscan',
    clamscan: { active: false },
    // An empty binary path makes clamscan skip probing a local clamdscan with execFile; with
    // localFallback off every scan goes over the socket.
    clamdscan: { ...where, timeout: config.timeout_ms, localFallback: false, path: '' },
  };
}

function toOutcome(result: NodeClam.ScanResult): ScanOutcome {
  if (result.isInfected === true) return { state: 'infected', signature: result.viruses[0] ?? 'unknown' };
  if (result.isInfected === false) return CLEAN;
  return {
    state: 'error',
    reason: result.timeout
      ? 'clamd timed out reading the stream'
      : `unexpected reply "${result.resultString}"`,
  };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error ? error.code : undefined;
  // clamd answers "INSTREAM size limit exceeded" and hangs up while the rest is still being written.
  if (code === 'EPIPE' || code === 'ECONNRESET') {
    return `${error.message} (clamd hung up mid-stream, as it does past its StreamMaxLength)`;
  }
  return error.message;
}

/**
 * Opens clamscan's clamd connections here, in place of its `_initSocket` (2.4.0, pinned), and
 * keeps each in `open` from the moment it is created: clamscan's own handed a socket over only once
 * connected, so a clamd that never accepts (its backlog full) left a connection attempt that
 * `close()` could not reach, holding its socket until the connect timeout (`timeout_ms`). As
 * clamscan's: a connect timeout rejects, and later the socket ends after `timeout_ms` of silence.
 * A connection asked for once `closed` fired fails at once, without connecting.
 */
function trackSockets(
  clam: NodeClam,
  config: Readonly<ClamavConfig>,
  open: Set<Socket>,
  closed: AbortSignal,
): void {
  clam._initSocket = () =>
    new Promise<Socket>((resolve, reject) => {
      if (closed.aborted) return reject(new Error(CLOSED_REASON));
      const socket = config.socket
        ? createConnection({ path: config.socket })
        : createConnection({ host: config.host, port: config.port });
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      socket.setTimeout(config.timeout_ms);
      let connected = false;
      socket.once('connect', () => {
        connected = true;
        resolve(socket);
      });
      socket.on('timeout', () => {
        if (connected) return void socket.end();
        socket.destroy();
        reject(new Error('Connection to host has timed out.'));
      });
      // Kept, as clamscan's was: an error after the connect must not go unhandled.
      socket.on('error', reject);
    });
}

/** Resolves with `work`, or with `aborted` as soon as `signal` fires; `work` may go on in the background. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal, aborted: T): Promise<T> {
  let onAbort: (() => void) | undefined;
  const abort = new Promise<T>((resolve) => {
    onAbort = () => resolve(aborted);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, abort]).finally(() => {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  });
}

/** Resolves with `work`, or with `onTimeout()` after `ms`; `work` may go on in the background. */
function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms);
  });
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}
