/**
 * A raw SMTP client for tests that need to see exact replies (codes, enhanced status codes, EHLO
 * keywords) or to misbehave (too many commands, too many connections): one command, one reply.
 */
import { connect, type Socket } from 'node:net';

export interface Reply {
  readonly code: number;
  readonly lines: string[];
  readonly text: string;
}

export interface RawSmtp {
  readonly greeting: Reply;
  command(line: string): Promise<Reply>;
  /** Sends raw bytes (a message body ending in CRLF.CRLF) and reads the reply. */
  data(bytes: string): Promise<Reply>;
  /** Reads the next reply without sending anything (one the server sends unasked, as a 421). */
  next(): Promise<Reply>;
  /** Sends raw bytes without waiting for a reply (part of a message); resolves once they are flushed. */
  write(bytes: string): Promise<void>;
  /** Resolves when the server has closed the connection. */
  closed(): Promise<void>;
  isClosed(): boolean;
  end(): void;
}

/** `halfOpen`: the client keeps its side open after the server closes its own (a stubborn client). */
export async function openSmtp(
  port: number,
  options: { readonly halfOpen?: boolean } = {},
): Promise<RawSmtp> {
  const socket: Socket = connect({ host: '127.0.0.1', port, allowHalfOpen: options.halfOpen ?? false });
  let buffer = '';
  let closed = false;
  const waiters: Array<() => void> = [];
  const closeWaiters: Array<() => void> = [];
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  socket.on('close', () => {
    closed = true;
    for (const wake of [...waiters.splice(0), ...closeWaiters.splice(0)]) wake();
  });
  socket.on('error', () => undefined);

  const readReply = async (): Promise<Reply> => {
    for (;;) {
      const lines = buffer.split('\r\n');
      const lastComplete = lines.findIndex((line) => /^\d{3} /.test(line) || /^\d{3}$/.test(line));
      if (lastComplete >= 0) {
        const replyLines = lines.slice(0, lastComplete + 1);
        buffer = lines.slice(lastComplete + 1).join('\r\n');
        const code = Number(replyLines[0]?.slice(0, 3));
        return { code, lines: replyLines, text: replyLines.join('\n') };
      }
      if (closed) throw new Error(`connection closed; unread: ${JSON.stringify(buffer)}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };

  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  const greeting = await readReply();
  return {
    greeting,
    async command(line) {
      socket.write(`${line}\r\n`);
      return readReply();
    },
    async data(bytes) {
      socket.write(bytes);
      return readReply();
    },
    next: readReply,
    write: (bytes) =>
      new Promise<void>((resolve, reject) =>
        socket.write(bytes, (error) => (error ? reject(error) : resolve())),
      ),
    closed: () => (closed ? Promise.resolve() : new Promise<void>((resolve) => closeWaiters.push(resolve))),
    isClosed: () => closed,
    end: () => socket.destroy(),
  };
}

/** One whole transaction over a raw connection (MAIL FROM:<> allowed); returns the reply to the final dot. */
export async function sendRaw(
  port: number,
  from: string,
  to: readonly string[],
  message: string,
  options: { readonly helo?: string } = {},
): Promise<Reply> {
  const smtp = await openSmtp(port);
  try {
    await smtp.command(`EHLO ${options.helo ?? 'mx.reporter.example'}`);
    const mail = await smtp.command(`MAIL FROM:<${from}>`);
    if (mail.code !== 250) return mail;
    for (const rcpt of to) {
      const reply = await smtp.command(`RCPT TO:<${rcpt}>`);
      if (reply.code !== 250) return reply;
    }
    const go = await smtp.command('DATA');
    if (go.code !== 354) return go;
    const body = message.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
    const done = await smtp.data(`${body.endsWith('\r\n') ? body : `${body}\r\n`}.\r\n`);
    await smtp.command('QUIT');
    return done;
  } finally {
    smtp.end();
  }
}
