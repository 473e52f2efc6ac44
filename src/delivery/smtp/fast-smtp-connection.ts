/**
 * nodemailer's SMTP client connection with the few changes the delivery engine needs, each pinned
 * to nodemailer 10.6's internals (and each with a test that fails if they change):
 *
 * - DATA is encoded by native buffer scans (dot-stuffing.ts) on each DataStream it creates
 *   (test/delivery/compose/dot-stuffing.test.ts).
 * - The waits of RFC 5321 §4.5.3.2 where nodemailer's differ (test/delivery/smtp/smtp-timeouts.test.ts):
 *   its `connectionTimeout` bounds the TCP connection only, then the greeting gets a reply's time
 *   (§4.5.3.2.1: 5 minutes), and the reply to the end of DATA at least 10 minutes (§4.5.3.2.6).
 */
import type { Socket } from 'node:net';
import type { Transform } from 'node:stream';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { type DataStreamState, fastDataTransform } from '../compose/dot-stuffing.js';

/** RFC 5321 §4.5.3.2.6: wait at least 10 minutes for the reply to the end of DATA. */
export const DATA_DONE_MIN_MS = 10 * 60_000;

/** How long a connection waits for the server, in milliseconds. */
export interface Waits {
  /** For the greeting, from the TCP connection to the end of STARTTLS. */
  readonly greetingMs: number;
  /** For each other reply (inactivity). */
  readonly commandMs: number;
  /** For the reply to the end of DATA. */
  readonly dataDoneMs: number;
}

/** nodemailer 10.6's internals this class leans on. */
interface SmtpInternals {
  _createSendStream(this: unknown, cb: unknown): Transform;
  _onConnect(this: unknown): void;
  _connectionDeadline: number;
  _socket: Socket | false | null;
}

/** nodemailer's connection with the changes above; everything else is nodemailer's. */
export class FastSmtpConnection extends SMTPConnection {
  readonly #waits: Waits;

  constructor(options: SMTPConnection.Options, waits: Waits) {
    super(options);
    this.#waits = waits;
  }

  /**
   * The TCP connection is open: `connectionTimeout` (connect_timeout) has done its job, and the
   * greeting gets a reply's time (§4.5.3.2.1: 5 minutes; servers delay it while busy). nodemailer
   * would bound it, and STARTTLS after it, by what connectionTimeout had left.
   */
  _onConnect(): void {
    const self = this as unknown as SmtpInternals;
    self._connectionDeadline = Date.now() + this.#waits.greetingMs;
    (SMTPConnection.prototype as unknown as SmtpInternals)._onConnect.call(this);
  }

  _createSendStream(callback: unknown): Transform {
    const parent = SMTPConnection.prototype as unknown as SmtpInternals;
    const socket = (this as unknown as SmtpInternals)._socket;
    // §4.5.3.2.6: once the final dot is out, the server is delivering; a timeout then would
    // leave it with the message and us retrying it. The next command waits smtp_timeout again.
    const done = (err: unknown, str: unknown) => {
      if (socket) socket.setTimeout(this.#waits.commandMs);
      (callback as (err: unknown, str: unknown) => void)(err, str);
    };
    const stream = parent._createSendStream.call(this, done) as Transform & DataStreamState;
    if (socket) stream.once('end', () => socket.setTimeout(this.#waits.dataDoneMs));
    const original = Object.getPrototypeOf(stream)._transform;
    stream._transform = fastDataTransform(original);
    return stream;
  }
}
