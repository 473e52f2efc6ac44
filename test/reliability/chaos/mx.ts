/**
 * The recipients' MX for the crash-safety runs: a real SMTP server on loopback that records every
 * message by its Subject, knows which message each open connection is carrying (the transaction
 * under way, or the last one whose outcome the sender may not have committed yet), and can hold
 * its reply to a DATA so a kill lands inside the transaction.
 */
import { SMTPServer } from 'smtp-server';

export interface ChaosMx {
  readonly port: number;
  /** Subject → how many times it arrived (per recipient transaction). */
  readonly seen: Map<string, number>;
  /**
   * What a kill now may duplicate: the message each open connection is carrying, and every
   * message accepted in the last `windowMs` (the sender commits outcomes in groups, a few ms
   * after the MX's 250, so the last messages of a connection may not be recorded yet).
   */
  inFlight(windowMs: number): Set<string>;
  /** Resolves at the next end of DATA, before the reply; `hold` ms pass before the reply. */
  nextData(hold: number): Promise<void>;
  /** Resolves just after the next 250 to a DATA was written. */
  nextReply(): Promise<void>;
  close(): Promise<void>;
}

export async function startChaosMx(): Promise<ChaosMx> {
  const seen = new Map<string, number>();
  const carrying = new Map<string, string>();
  const recent: { at: number; subject: string }[] = [];
  let onData: ((hold: (ms: number) => void) => void) | undefined;
  let onReply: (() => void) | undefined;
  const server = new SMTPServer({
    name: 'mx.chaos.test',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    size: 10 * 1024 * 1024,
    onClose: (session) => {
      carrying.delete(session.id);
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('latin1');
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '(none)';
        carrying.set(session.id, subject);
        seen.set(subject, (seen.get(subject) ?? 0) + 1);
        recent.push({ at: Date.now(), subject });
        if (recent.length > 10_000) recent.splice(0, 5_000);
        const reply = () => {
          callback(null, 'OK: queued');
          const waiter = onReply;
          onReply = undefined;
          if (waiter) setImmediate(waiter);
        };
        const waiter = onData;
        onData = undefined;
        if (!waiter) return reply();
        waiter((ms) => setTimeout(reply, ms));
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    seen,
    inFlight: (windowMs) => {
      const since = Date.now() - windowMs;
      return new Set([...carrying.values(), ...recent.filter((r) => r.at >= since).map((r) => r.subject)]);
    },
    nextData: (hold) =>
      new Promise((resolve) => {
        onData = (later) => {
          later(hold);
          resolve();
        };
      }),
    nextReply: () =>
      new Promise((resolve) => {
        onReply = resolve;
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
