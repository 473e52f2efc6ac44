/**
 * One SMTP client connection to one MX host, over nodemailer's SMTPConnection, as promises. It
 * connects to an address our own resolver found (never the system resolver), says EHLO with the
 * configured name, and upgrades with STARTTLS when offered (RFC 3207) under one of three policies:
 *
 * - `opportunistic`: use TLS when offered, never verify the certificate (RFC 7435: unauthenticated
 *   encryption beats none; MX certificates rarely match their names), continue in plaintext when
 *   the STARTTLS command is refused. A failed handshake is reported as `tls_failed`; the lane then
 *   retries that host once in plaintext.
 * - `require`: STARTTLS must succeed, the certificate is not verified (Postfix's "encrypt").
 * - `verify`: STARTTLS must succeed and the certificate must be valid for the MX host name (an
 *   enforced MTA-STS policy, RFC 8461 §4.2).
 *
 * Waits follow RFC 5321 §4.5.3.2 (fast-smtp-connection.ts). After a transaction the connection
 * stays open for the next message to the same host; a failed transaction is reset with RSET. It
 * never decides what a reply means (bounce-classifier.ts).
 */
import type SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { SmtpError } from '../replies/smtp-reply.js';
import type { TlsMode } from '../routing/route.js';
import { DATA_DONE_MIN_MS, FastSmtpConnection } from './fast-smtp-connection.js';

export type { SmtpError, TlsMode };

export interface MxTarget {
  /** The MX host name: SNI, certificate checks, logs. */
  readonly host: string;
  /** The IP address to connect to, from our resolver. */
  readonly address: string;
  readonly port: number;
}

export interface ConnectOptions {
  /** EHLO name. */
  readonly name: string;
  readonly tls: TlsMode;
  readonly localAddress?: string | undefined;
  /** For the TCP connection. */
  readonly connectTimeoutMs: number;
  /** For each reply, the greeting included; the end of DATA gets at least 10 minutes. */
  readonly commandTimeoutMs: number;
  /** Extra CAs for `verify`. */
  readonly ca?: string | undefined;
  /** Aborts the connection while it is being opened (the delivery engine is stopping). */
  readonly signal?: AbortSignal | undefined;
}

export interface Envelope {
  readonly from: string;
  readonly to: readonly string[];
  /** SIZE= (RFC 1870 §3): the message's octets before dot-stuffing, not the bytes written in DATA. */
  readonly size: number;
}

/** What the server said about one transaction that reached the end of DATA. */
export interface TransactionReplies {
  /** Recipients refused at RCPT TO, with the reply each got. */
  readonly rejected: ReadonlyMap<string, string>;
  /** Recipients accepted at RCPT TO. */
  readonly accepted: readonly string[];
  /** The reply to the end of DATA, for the accepted recipients. */
  readonly response: string;
}

/**
 * The recipients refused at RCPT TO in the transaction a DATA failure ended, or undefined for any
 * other error. nodemailer hands them over only when the message is accepted
 * (`info.rejectedErrors`); its error for a refused DATA command or end of DATA carries the DATA
 * reply alone. They stay on its private `_envelope` until the next MAIL FROM or RSET. Only a
 * failure at DATA is sure to belong to that envelope: a message over the server's SIZE, for one,
 * is refused before its envelope replaces the previous transaction's. Pinned to nodemailer
 * 10.6.0; test/delivery/smtp/data-failure-recipients.test.ts fails if this read stops working.
 */
function rejectionsAtData(smtp: SMTPConnection, err: SmtpError): SmtpError[] | undefined {
  if (err.command !== 'DATA' || err.rejectedErrors !== undefined) return undefined;
  const envelope = (smtp as unknown as { _envelope?: { rejectedErrors?: unknown } })._envelope;
  const rejected = envelope?.rejectedErrors;
  return Array.isArray(rejected) && rejected.length > 0 ? [...(rejected as SmtpError[])] : undefined;
}

export class MxConnection {
  readonly target: MxTarget;
  readonly tls: TlsMode;
  /** Messages sent over this connection (successful or not). */
  transactions = 0;
  readonly openedAt = Date.now();
  #smtp: SMTPConnection;
  #closed = false;
  #ended = false;

  private constructor(target: MxTarget, tls: TlsMode, smtp: SMTPConnection) {
    this.target = target;
    this.tls = tls;
    this.#smtp = smtp;
    // Without a listener an 'error' event would throw; failures reach callers through callbacks.
    smtp.on('error', () => {
      this.#closed = true;
    });
    smtp.on('end', () => {
      this.#closed = true;
      this.#ended = true;
    });
  }

  /** Opens the connection and completes EHLO (and STARTTLS); rejects with an SmtpError. */
  static open(target: MxTarget, options: ConnectOptions): Promise<MxConnection> {
    const waits = {
      greetingMs: options.commandTimeoutMs,
      commandMs: options.commandTimeoutMs,
      dataDoneMs: Math.max(options.commandTimeoutMs, DATA_DONE_MIN_MS),
    };
    const smtp = new FastSmtpConnection(
      {
        host: target.address,
        port: target.port,
        servername: target.host,
        name: options.name,
        localAddress: options.localAddress,
        // The TCP connection only; the greeting and STARTTLS then get commandTimeoutMs.
        connectionTimeout: options.connectTimeoutMs,
        greetingTimeout: options.commandTimeoutMs,
        socketTimeout: options.commandTimeoutMs,
        socketCloseTimeout: 1000,
        ignoreTLS: options.tls === 'none',
        requireTLS: options.tls === 'require' || options.tls === 'verify',
        opportunisticTLS: options.tls === 'opportunistic',
        tls:
          options.tls === 'verify'
            ? { rejectUnauthorized: true, servername: target.host, ...(options.ca ? { ca: options.ca } : {}) }
            : { rejectUnauthorized: false, servername: target.host },
        logger: false,
      },
      waits,
    );
    const connection = new MxConnection(target, options.tls, smtp);
    const { signal } = options;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (err: unknown) => {
        if (settled) return;
        settled = true;
        smtp.off('error', settle);
        smtp.off('end', ended);
        signal?.removeEventListener('abort', aborted);
        if (err) reject(err);
        else resolve(connection);
      };
      // nodemailer reports a failed connect (refused, timed out, a 421 greeting) only as an event.
      const ended = () =>
        settle(Object.assign(new Error('connection closed before the greeting'), { code: 'ECONNECTION' }));
      const aborted = () => {
        settle(new Error('connection aborted: the delivery engine is stopping'));
        connection.destroy();
      };
      if (signal?.aborted) {
        aborted();
        return;
      }
      signal?.addEventListener('abort', aborted, { once: true });
      smtp.once('error', settle);
      smtp.once('end', ended);
      smtp.connect((err) => settle(err ?? null));
    });
  }

  /** Whether the session runs over TLS. */
  get secure(): boolean {
    return this.#smtp.secure;
  }

  /** False once the server closed the connection or an error ended it. */
  get usable(): boolean {
    return !this.#closed && !this.#smtp.destroyed;
  }

  /**
   * One mail transaction (MAIL FROM, RCPT TO for each recipient, DATA; pipelined when the server
   * offers PIPELINING, RFC 2920). Resolves when the server answered the end of DATA with 2xx;
   * rejects with an SmtpError otherwise (all recipients refused, MAIL FROM or DATA refused, the
   * connection lost, the message over the server's SIZE). A refused DATA carries the recipients
   * refused at RCPT TO in `rejectedErrors`, as every other error from the envelope does.
   */
  send(envelope: Envelope, message: Buffer): Promise<TransactionReplies> {
    this.transactions += 1;
    return new Promise((resolve, reject) => {
      this.#smtp.send(
        { from: envelope.from, to: [...envelope.to], size: envelope.size },
        message,
        (err, info) => {
          if (err) {
            const rejectedErrors = rejectionsAtData(this.#smtp, err);
            return reject(rejectedErrors === undefined ? err : Object.assign(err, { rejectedErrors }));
          }
          if (!info) return reject(new Error('no result from the SMTP connection'));
          const rejected = new Map<string, string>();
          for (const error of (info.rejectedErrors ?? []) as SmtpError[]) {
            if (error.recipient) rejected.set(error.recipient, error.response ?? error.message);
          }
          resolve({ accepted: info.accepted, rejected, response: info.response });
        },
      );
    });
  }

  /** RSET after a failed transaction; false (and the connection closed) when that fails too. */
  reset(): Promise<boolean> {
    if (!this.usable) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.#smtp.reset((err) => {
        if (err) this.close();
        resolve(!err);
      });
    });
  }

  /** Calls `listener` once the connection has ended (at once if it already has). */
  onEnd(listener: () => void): void {
    if (this.#ended) listener();
    else this.#smtp.once('end', listener);
  }

  /** QUIT and close. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#smtp.quit();
  }

  /**
   * Drops the connection at once, abandoning a transaction in flight (a broken connection, or
   * shutdown after the drain time): the socket is destroyed, not ended, so bytes still buffered
   * (the end of DATA among them) are never sent, and no reply is read from it.
   */
  destroy(): void {
    this.#closed = true;
    // nodemailer ends the socket gracefully (flushing what is buffered) unless this is 0.
    this.#smtp.options.socketCloseTimeout = 0;
    this.#smtp.close();
  }
}
