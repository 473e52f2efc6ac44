/**
 * The MX hosts one lane skips for a while, so that the jobs behind a host that cannot be reached
 * are deferred at once instead of each waiting out a connect timeout.
 *
 * What a failure says decides whom it holds back. A host that refused the connection, timed out or
 * hung up before its greeting is down for every transaction. A failed TLS handshake (a certificate
 * that does not verify, no usable cipher) says only that the host cannot give that TLS level: it
 * holds back transactions at that level and no others. One domain's enforced MTA-STS policy
 * (RFC 8461 §4.2) must never stop another domain on the same MX that is delivered with
 * opportunistic TLS (RFC 7435). It never decides what a reply means (bounce-classifier.ts).
 *
 * @example
 * const down = new DownHosts();
 * down.mark('mx.example', 'verify', certificateError, outcome);
 * down.outcomeFor('mx.example', 'verify'); // outcome: the next verified attempt is skipped
 * down.outcomeFor('mx.example', 'opportunistic'); // undefined: this one may go ahead
 */
import { transportFailureOf } from '../replies/bounce-classifier.js';
import type { Outcome } from '../replies/outcome.js';
import type { TlsMode } from '../routing/route.js';

const HOST_DOWN_MS = 60_000;

export class DownHosts {
  readonly #downMs: number;
  /** Keyed by host name (down for all), or by host name and TLS level (down for that level). */
  readonly #entries = new Map<string, { readonly until: number; readonly outcome: Outcome }>();

  constructor(downMs = HOST_DOWN_MS) {
    this.#downMs = downMs;
  }

  /** Remembers that opening a connection to `host` at TLS level `tls` failed with `error` and no reply. */
  mark(host: string, tls: TlsMode, error: unknown, outcome: Outcome): void {
    const failure = transportFailureOf(error);
    const tlsOnly = failure === 'tls_failed' || failure === 'tls_unavailable';
    this.#entries.set(tlsOnly ? levelKey(host, tls) : host, { until: Date.now() + this.#downMs, outcome });
  }

  /** Why a transaction at TLS level `tls` skips `host` now, or undefined when it may try it. */
  outcomeFor(host: string, tls: TlsMode): Outcome | undefined {
    // Asked for every job waiting for a connection each time one comes back: nothing down is the
    // common case, and answers without a clock read or a key built.
    if (this.#entries.size === 0) return undefined;
    return this.#current(host) ?? this.#current(levelKey(host, tls));
  }

  #current(key: string): Outcome | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > Date.now()) return entry.outcome;
    this.#entries.delete(key);
    return undefined;
  }
}

/** Ends a wait for a connection to a host that went down meanwhile; carries why, to be reported as is. */
export class HostDown extends Error {
  readonly outcome: Outcome;

  constructor(host: string, outcome: Outcome) {
    super(`${host} is down`);
    this.outcome = outcome;
  }
}

function levelKey(host: string, tls: TlsMode): string {
  return `${host}|${tls}`;
}
