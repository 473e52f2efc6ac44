/**
 * A real SMTP server on loopback that plays a recipient's MX in tests (smtp-server, in-process).
 * It records every transaction that reaches the end of DATA (EHLO name, envelope, MAIL FROM's
 * parameters, the message bytes as received, TLS or not, which connection carried it) and answers
 * what a test scripts: per recipient at RCPT TO, at MAIL FROM, at the end of DATA, or 421 at
 * connect. It advertises PIPELINING and SIZE, and STARTTLS with a throwaway self-signed
 * certificate when asked.
 *
 * Scripted texts go out verbatim, enhanced status code included ("5.1.1 User unknown"): the
 * server's own ENHANCEDSTATUSCODES is off so that it does not prefix a second one.
 *
 * @example
 * const peer = await startSmtpPeer({ starttls: true });
 * peer.rcptReply('nobody@x.test', 550, '5.1.1 User unknown');
 * // ... deliver to 127.0.0.1:peer.port ...
 * const [message] = await peer.waitFor(1);
 * await peer.close();
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { ensureSelfSignedCert } from '../../src/platform/tls/self-signed.js';

export interface SmtpPeerOptions {
  /** Offer STARTTLS with a self-signed certificate for "localhost". Default false: not advertised. */
  readonly starttls?: boolean;
  /** The SIZE limit advertised and enforced (a bigger message gets 552). Default 10 MiB. */
  readonly size?: number;
  /** The name in the greeting and the EHLO reply. */
  readonly name?: string;
  /** Recipients accepted per transaction; more get 452 (RFC 5321 §4.5.3.1.10). Default: no limit. */
  readonly maxRecipients?: number;
  /** What RCPT TOs past `maxRecipients` get instead of 452 (e.g. 451 "4.5.3 Too many recipients"). */
  readonly overLimitReply?: { readonly code: number; readonly text: string };
  /** The loopback address to listen on. Default 127.0.0.1. */
  readonly host?: '127.0.0.1' | '::1';
}

/** One mail transaction as the peer saw it at the end of DATA. */
export interface PeerMessage {
  /** 1 for the first connection the peer accepted, 2 for the next, ... */
  readonly connection: number;
  /** The argument of EHLO/HELO. */
  readonly clientHostname: string;
  readonly mailFrom: string;
  /** The parameters of MAIL FROM, keys upper-cased (`{ SIZE: '1234', BODY: '8BITMIME' }`). */
  readonly mailFromParams: Readonly<Record<string, string | true>>;
  /** Recipients accepted at RCPT TO. */
  readonly rcptTo: readonly string[];
  /** Recipients refused at RCPT TO in this transaction. */
  readonly rejectedRcptTo: readonly string[];
  /** The message as received, dot-unstuffed, CRLF line ends. */
  readonly data: Buffer;
  /** Whether the transaction ran over TLS. */
  readonly secure: boolean;
  /** What the peer answered at the end of DATA. */
  readonly reply: { readonly code: number; readonly text: string };
  /** When the transaction's MAIL FROM arrived (`Date.now()`). */
  readonly mailFromAt: number;
  /** The address the client connected from (a dedicated or shared source address). */
  readonly remoteAddress: string;
}

export interface ScriptOptions {
  /** Answer this way this many times, then go back to accepting. Default: every time. */
  readonly times?: number;
}

interface Scripted {
  readonly code: number;
  readonly text: string;
  remaining: number;
}

interface SessionState {
  readonly connection: number;
  rejected: string[];
  mailFromAt: number;
}

export class SmtpPeer {
  readonly host: string;
  readonly #server: SMTPServer;
  readonly #messages: PeerMessage[] = [];
  readonly #sessions = new Map<string, SessionState>();
  readonly #rcpt = new Map<string, Scripted>();
  readonly #waiters = new Set<() => void>();
  #port = 0;
  #connections = 0;
  #rcptCommands = 0;
  #atConnect: Scripted | null = null;
  #atMailFrom: Scripted | null = null;
  #atData: Scripted | null = null;
  #greetingDelayMs = 0;
  #dataDelayMs = 0;
  #mailFromDelayMs = 0;

  constructor(options: SmtpPeerOptions, tls: { key: Buffer; cert: Buffer } | null) {
    this.host = options.host ?? '127.0.0.1';
    this.#server = new SMTPServer({
      name: options.name ?? 'mx.peer.test',
      size: options.size ?? 10 * 1024 * 1024,
      rejectOversized: true,
      ...(options.maxRecipients && !options.overLimitReply ? { maxRecipients: options.maxRecipients } : {}),
      hideENHANCEDSTATUSCODES: true,
      disabledCommands: tls === null ? ['AUTH', 'STARTTLS'] : ['AUTH'],
      ...(tls ?? {}),
      authOptional: true,
      disableReverseLookup: true,
      logger: false,
      closeTimeout: 20,
      onConnect: (session, callback) => this.#onConnect(session, callback),
      onMailFrom: (_address, session, callback) => {
        const state = this.#state(session);
        state.rejected = [];
        state.mailFromAt = Date.now();
        const reply = errorFor(this.#take('mail'));
        later(this.#mailFromDelayMs, () => callback(reply));
      },
      onRcptTo: (address, session, callback) => {
        this.#rcptCommands += 1;
        const key = address.address.toLowerCase();
        const script = this.#rcpt.get(key);
        const overLimit =
          session.envelope.rcptTo.length >= (options.maxRecipients ?? Number.POSITIVE_INFINITY);
        const reply =
          options.overLimitReply !== undefined && overLimit
            ? options.overLimitReply
            : script && consume(script, () => this.#rcpt.delete(key));
        const err = errorFor(reply ?? null);
        if (err !== null) this.#state(session).rejected.push(address.address);
        callback(err);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const script = stream.sizeExceeded ? null : this.#take('data');
          const reply = stream.sizeExceeded
            ? { code: 552, text: 'message exceeds fixed maximum message size' }
            : (script ?? { code: 250, text: 'OK: message queued' });
          this.#record(session, Buffer.concat(chunks), reply);
          later(this.#dataDelayMs, () => callback(errorFor(reply), reply.text));
        });
      },
    });
  }

  /** The port the peer listens on (at `host`). */
  get port(): number {
    return this.#port;
  }

  /** Every transaction that reached the end of DATA, in order. */
  get messages(): readonly PeerMessage[] {
    return this.#messages;
  }

  /** How many connections the peer has accepted (including those it answered 421). */
  get connections(): number {
    return this.#connections;
  }

  /** How many RCPT TO commands the peer has answered, accepted or refused. */
  get rcptCommands(): number {
    return this.#rcptCommands;
  }

  /** Answer RCPT TO for this address (case-insensitive) with `code text`. */
  rcptReply(address: string, code: number, text: string, options: ScriptOptions = {}): this {
    this.#rcpt.set(address.toLowerCase(), script(code, text, options));
    return this;
  }

  /** Answer every MAIL FROM with `code text`. */
  mailFromReply(code: number, text: string, options: ScriptOptions = {}): this {
    this.#atMailFrom = script(code, text, options);
    return this;
  }

  /** Answer the end of DATA with `code text` (a 2xx code accepts with that text). */
  dataReply(code: number, text: string, options: ScriptOptions = {}): this {
    this.#atData = script(code, text, options);
    return this;
  }

  /** Greet new connections with `code text` and hang up (e.g. 421 at connect). */
  connectReply(code: number, text: string, options: ScriptOptions = {}): this {
    this.#atConnect = script(code, text, options);
    return this;
  }

  /** Send the greeting `ms` after accepting a connection (a server busy or tarpitting, RFC 5321 §4.5.3.2.1). */
  delayGreeting(ms: number): this {
    this.#greetingDelayMs = ms;
    return this;
  }

  /** Answer the end of DATA `ms` after it arrived (a server filtering the message before it answers). */
  delayDataReply(ms: number): this {
    this.#dataDelayMs = ms;
    return this;
  }

  /** Answer MAIL FROM `ms` after it arrived. */
  delayMailFromReply(ms: number): this {
    this.#mailFromDelayMs = ms;
    return this;
  }

  /** Forget every scripted reply: accept everything again. */
  clearReplies(): this {
    this.#rcpt.clear();
    this.#atConnect = this.#atMailFrom = this.#atData = null;
    return this;
  }

  /** Resolves with the messages once `count` have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs = 5000): Promise<readonly PeerMessage[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.#messages.length < count) return;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve(this.#messages.slice());
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(
          new Error(`SMTP peer waited ${timeoutMs} ms for ${count} message(s), got ${this.#messages.length}`),
        );
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  /** @internal Starts listening; use `startSmtpPeer`. */
  async listen(): Promise<void> {
    // A client that vanishes mid-transaction (a process killed by a test) resets its socket; an
    // MX notes it and goes on, and so does the peer (unheard, the error would end the test run).
    this.#server.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      this.#server.server.once('error', reject);
      this.#server.listen(0, this.host, () => {
        this.#server.server.off('error', reject);
        resolve();
      });
    });
    this.#port = (this.#server.server.address() as AddressInfo).port;
  }

  /** Stops listening and drops open connections (a pooled client sees 421). */
  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #take(stage: 'connect' | 'mail' | 'data'): Scripted | null {
    const field = stage === 'connect' ? this.#atConnect : stage === 'mail' ? this.#atMailFrom : this.#atData;
    if (field === null) return null;
    return consume(field, () => {
      if (stage === 'connect') this.#atConnect = null;
      else if (stage === 'mail') this.#atMailFrom = null;
      else this.#atData = null;
    });
  }

  #onConnect(session: SMTPServerSession, callback: (err?: Error | null) => void): void {
    this.#connections += 1;
    this.#sessions.set(session.id, { connection: this.#connections, rejected: [], mailFromAt: 0 });
    const reply = errorFor(this.#take('connect'));
    later(this.#greetingDelayMs, () => callback(reply));
  }

  #state(session: SMTPServerSession): SessionState {
    const state = this.#sessions.get(session.id);
    if (state === undefined) throw new Error(`SMTP peer: unknown session ${session.id}`);
    return state;
  }

  #record(session: SMTPServerSession, data: Buffer, reply: { code: number; text: string }): void {
    const state = this.#state(session);
    const mailFrom = session.envelope.mailFrom;
    this.#messages.push({
      connection: state.connection,
      clientHostname: String(session.hostNameAppearsAs || ''),
      mailFrom: mailFrom === false ? '' : mailFrom.address,
      mailFromParams: mailFrom === false || mailFrom.args === false ? {} : { ...mailFrom.args },
      rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
      rejectedRcptTo: state.rejected.slice(),
      data,
      secure: session.secure,
      reply: { code: reply.code, text: reply.text },
      mailFromAt: state.mailFromAt,
      remoteAddress: String(session.remoteAddress ?? '').replace(/^::ffff:/, ''),
    });
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/**
 * Starts a peer on 127.0.0.1 (or `options.host`), port 0.
 *
 * @example const peer = await startSmtpPeer({ starttls: true, size: 1024 * 1024 });
 */
export async function startSmtpPeer(options: SmtpPeerOptions = {}): Promise<SmtpPeer> {
  const peer = new SmtpPeer(options, options.starttls ? await testCertificate() : null);
  await peer.listen();
  return peer;
}

let certificate: Promise<{ key: Buffer; cert: Buffer }> | null = null;

/** One throwaway certificate per test process, read into memory; its files are removed at once. */
function testCertificate(): Promise<{ key: Buffer; cert: Buffer }> {
  certificate ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'posthorn-peer-tls-'));
    try {
      const files = await ensureSelfSignedCert(dir, 'localhost');
      return { key: await readFile(files.keyFile), cert: await readFile(files.certFile) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return certificate;
}

/** Runs `work` after `ms`, or at once when there is no delay. */
function later(ms: number, work: () => void): void {
  if (ms > 0) setTimeout(work, ms);
  else work();
}

function script(code: number, text: string, options: ScriptOptions): Scripted {
  return { code, text, remaining: options.times ?? Number.POSITIVE_INFINITY };
}

function consume(scripted: Scripted, onSpent: () => void): Scripted {
  scripted.remaining -= 1;
  if (scripted.remaining <= 0) onSpent();
  return scripted;
}

/** A reply of 400 or more becomes the error smtp-server answers with; anything lower accepts. */
function errorFor(reply: { code: number; text: string } | null): (Error & { responseCode: number }) | null {
  if (reply === null || reply.code < 400) return null;
  return Object.assign(new Error(reply.text), { responseCode: reply.code });
}

/**
 * The PEM certificate peers offer with STARTTLS (self-signed for "localhost"), for tests that make
 * the client verify it (e.g. an MX under an enforced MTA-STS policy, with it as a trusted CA).
 */
export async function peerCertificatePem(): Promise<string> {
  return (await testCertificate()).cert.toString('utf8');
}
