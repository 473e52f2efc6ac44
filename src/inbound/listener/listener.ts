/**
 * Room `inbound/listener/`, the first stage. The SMTP listener accepts only mail Posthorn will keep
 * (recipients.ts), streams each transaction into the spool (spool-data.ts, spool-file.ts, spool.ts)
 * and answers 250 only once it is durable (data-reply.ts).
 *
 * It must never parse or authenticate a message, nor write the database, nor answer 250 before the
 * message is durable: the processor (processor.ts) takes each message from the spool.
 *
 * The inbound SMTP listener (smtp-server): greets with the configured hostname, offers STARTTLS
 * (RFC 3207), SIZE (RFC 1870), PIPELINING and enhanced status codes (RFC 2034), and accepts a
 * recipient only when `recipients.ts` says Posthorn will keep the message. The end of DATA is
 * answered 250 only after the message is durable in the spool; the processor does the rest. DATA
 * goes to the spool file as it arrives (`spool-data.ts`), so a connection holds a few chunks of its
 * message in memory, not the message.
 *
 * Limits (config `[smtp_in]`): message size, recipients per transaction, connections in all and
 * per client (an IPv4 address or an IPv6 /64, `client-key.ts`), commands before DATA, refused
 * recipients per connection, idle time and total session time. A client past one of them gets
 * 421 and is disconnected (RFC 5321 §3.8). The session limit and the end of a stop's grace never
 * take the place of a commit's reply: past the final dot the message may already be kept, and a
 * 421 would make the client send it again, so the cut waits for that reply (`COMMIT_GRACE_MS`).
 * A stop waits for it no longer than that again: a commit that hangs is left to finish on its own.
 *
 * It never parses a message, never writes to the database and never waits for DNS beyond the
 * recipient check: accepting must stay fast under load.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { parseDuration } from '../../platform/config/duration.js';
import type { Config } from '../../platform/config/schema.js';
import { parseHostPort } from '../../platform/host-port.js';
import { ListenError } from '../../platform/listen-error.js';
import type { Logger } from '../../platform/log.js';
import { settlesWithin } from '../../platform/settles-within.js';
import { clientKey } from './client-key.js';
import { connectionsOf } from './connections.js';
import { type Accepted, replyToData } from './data-reply.js';
import type { InboundRecipient, RecipientCheck } from './recipients.js';
import { smtpError } from './smtp-error.js';
import { smtpLogger } from './smtp-logger.js';
import type { Spool } from './spool.js';
import { type DataMeter, type DataOutcome, type DataStream, spoolData } from './spool-data.js';
import { envelopeOf, receivedHeader } from './transaction-envelope.js';

export interface ListenerDeps {
  readonly config: Config['smtp_in'];
  /** How long a stop waits for sessions in progress before closing them. */
  readonly shutdownTimeoutMs: number;
  /** How long a cut waits for a commit in progress to answer first (`COMMIT_GRACE_MS`). */
  readonly commitGraceMs?: number;
  readonly tls: { readonly key: Buffer; readonly cert: Buffer };
  readonly log: Logger;
  readonly checkRecipient: RecipientCheck;
  readonly spool: Spool;
  /** Called after a transaction is durable and acknowledged. */
  readonly onSpooled: (accepted: Accepted) => void;
}

export type { Accepted } from './data-reply.js';

export interface InboundListener {
  address(): AddressInfo;
  /** Transactions in DATA now and the bytes of their messages held in memory (a few chunks each). */
  receiving(): { readonly messages: number; readonly bytes: number };
  /**
   * Stops after a grace period (`shutdownTimeoutMs`); resolves once no transaction holds a spool
   * file, or at most `commitGraceMs` after the cuts, leaving a commit that hangs (logged) behind.
   */
  close(): Promise<void>;
}

interface SessionState {
  commands: number;
  refused: number;
  readonly accepted: Map<string, InboundRecipient>;
  timer: NodeJS.Timeout | undefined;
  /** The transaction from DATA until its reply is sent. */
  transaction: Transaction | undefined;
}

interface Transaction {
  readonly stream: DataStream;
  /** Resolves once the reply to the end of DATA is sent (or there is none: the client went). */
  readonly replied: Promise<void>;
}

/**
 * The reply a cut must let go first: once the final dot has arrived (smtp-server ends the stream's
 * writable side there) the client waits for it and the message may be kept, even while the last
 * of it is still being read and written (the stream's 'end' comes only after that).
 */
const awaitedReply = (transaction: Transaction | undefined): Promise<void> | undefined =>
  transaction?.stream.writableEnded ? transaction.replied : undefined;

/**
 * A cut (`max_session`, the end of a stop's grace) that comes while a message is being committed
 * waits this long for the commit's reply (fsync, rename and directory fsync take milliseconds).
 */
export const COMMIT_GRACE_MS = 5_000;

export async function startListener(deps: ListenerDeps): Promise<InboundListener> {
  const { config, log } = deps;
  const sessions = new Map<string, SessionState>();
  const perIp = new Map<string, number>();
  // Transactions in DATA, for `receiving()`.
  const receiving = new Set<DataMeter>();
  // Transactions from DATA until their reply, for `close()`.
  const transactions = new Set<Transaction>();
  const maxSessionMs = parseDuration(config.max_session);
  const commitGraceMs = deps.commitGraceMs ?? COMMIT_GRACE_MS;

  const stateOf = (session: SMTPServerSession): SessionState => {
    let state = sessions.get(session.id);
    if (!state) {
      state = { commands: 0, refused: 0, accepted: new Map(), timer: undefined, transaction: undefined };
      sessions.set(session.id, state);
    }
    return state;
  };

  const tooManyCommands = `Too many commands (over ${config.max_commands}) before DATA, closing connection`;
  const logger = smtpLogger(log, (connectionId) => {
    const state = sessions.get(connectionId);
    if (!state) return;
    state.commands += 1;
    // NOOP, RSET, VRFY, HELP and unknown commands never reach onMailFrom or onRcptTo: a client
    // pipelining thousands of them is cut off here, once, as soon as it passes the limit. The cut
    // comes before the command's own reply (a reply after a 421 is never written).
    if (state.commands === config.max_commands + 1) void cutOff(connectionId, tooManyCommands);
  });

  const tooChatty = (state: SessionState): Error | undefined =>
    state.commands > config.max_commands ? smtpError(421, tooManyCommands) : undefined;

  const options: SMTPServerOptions = {
    name: config.hostname,
    banner: 'Posthorn',
    size: config.max_message_bytes,
    rejectOversized: true,
    // smtp-server answers 421 to a connection past this count and closes it.
    maxClients: config.max_clients,
    maxRecipients: config.max_recipients,
    key: deps.tls.key,
    cert: deps.tls.cert,
    authOptional: true,
    disabledCommands: ['AUTH'],
    hideENHANCEDSTATUSCODES: false,
    // The reverse lookup would put DNS in front of every greeting; mailauth reads the address.
    disableReverseLookup: true,
    socketTimeout: parseDuration(config.idle_timeout),
    // A backstop: `close()` cuts the sessions itself, each after its commit in progress.
    closeTimeout: deps.shutdownTimeoutMs + commitGraceMs + 1_000,
    logger,

    onConnect(session, callback) {
      const client = clientKey(session.remoteAddress);
      const open = perIp.get(client) ?? 0;
      if (open >= config.max_connections_per_ip) {
        callback(smtpError(421, `Too many connections from ${client}, try again later`));
        return;
      }
      perIp.set(client, open + 1);
      connections.keepOwnEnhancedCodes(session.id);
      const state = stateOf(session);
      state.timer = setTimeout(
        () => void cutOff(session.id, 'Session time limit reached, closing connection'),
        maxSessionMs,
      );
      state.timer.unref();
      callback();
    },

    onClose(session) {
      const state = sessions.get(session.id);
      if (!state) return;
      clearTimeout(state.timer);
      sessions.delete(session.id);
      const client = clientKey(session.remoteAddress);
      const open = (perIp.get(client) ?? 1) - 1;
      if (open <= 0) perIp.delete(client);
      else perIp.set(client, open);
    },

    onMailFrom(_address, session, callback) {
      callback(tooChatty(stateOf(session)));
    },

    onRcptTo(address, session, callback) {
      const state = stateOf(session);
      const chatty = tooChatty(state);
      if (chatty) return callback(chatty);
      deps.checkRecipient(address.address).then(
        (recipient) => {
          if (recipient) {
            state.accepted.set(address.address, recipient);
            return callback();
          }
          state.refused += 1;
          if (state.refused > config.max_refused_recipients) {
            return callback(smtpError(421, 'Too many unknown recipients, closing connection'));
          }
          callback(smtpError(550, `<${address.address}>: no such mailbox here`));
        },
        (error: unknown) => {
          log.error({ err: error, rcpt: address.address }, 'recipient check failed');
          callback(smtpError(451, 'Local error checking the recipient, try again later'));
        },
      );
    },

    onData(stream, session, callback) {
      const state = stateOf(session);
      state.commands = 0;
      const envelope = envelopeOf(session, state.accepted);
      const head = Buffer.from(receivedHeader(envelope, config.hostname));
      // A client may go before the file is open: with a listener its stream errors, not the process.
      stream.on('error', () => undefined);
      const outcome = deps.spool.create(envelope, head).then(
        (file) => {
          const spooling = spoolData(stream, file, head);
          receiving.add(spooling.meter);
          return spooling.outcome.finally(() => receiving.delete(spooling.meter));
        },
        (error: unknown): DataOutcome => ({ kind: 'failed', error }),
      );
      const transaction: Transaction = {
        stream,
        replied: outcome.then((result) => replyToData(envelope, result, callback, deps)),
      };
      transactions.add(transaction);
      state.transaction = transaction;
      transaction.replied.finally(() => {
        transactions.delete(transaction);
        if (state.transaction === transaction) state.transaction = undefined;
      });
    },
  };

  const server = new SMTPServer(options);
  const connections = connectionsOf(server);
  /** 421 and close, but the reply to a commit in progress first (a 421 would make it a duplicate). */
  const cutOff = async (sessionId: string, message: string): Promise<void> => {
    const committing = awaitedReply(sessions.get(sessionId)?.transaction);
    if (!(await connections.cutOff(sessionId, message, committing, commitGraceMs)))
      log.warn(
        { session: sessionId },
        'cut off before the reply to its commit; the client may send it again',
      );
  };
  // smtp-server re-emits the listen failure here too: that one is the start's error, not a connection's.
  let listening = false;
  server.on('error', (error) => {
    if (listening) log.warn({ err: error }, 'inbound SMTP connection error');
  });

  const { host, port } = parseHostPort(config.listen);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(new ListenError('smtp_in.listen', config.listen, error));
    server.server.once('error', onError);
    server.listen(port, host, () => {
      server.server.off('error', onError);
      listening = true;
      resolve();
    });
  });
  const address = server.server.address() as AddressInfo;
  log.info(
    { host: address.address, port: address.port },
    `inbound SMTP listening on ${address.address}:${address.port}`,
  );

  return {
    address: () => address,
    receiving: () => {
      let bytes = 0;
      for (const meter of receiving) bytes += meter.held();
      return { messages: receiving.size, bytes };
    },
    async close() {
      for (const state of sessions.values()) clearTimeout(state.timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      let grace: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        grace = setTimeout(() => {
          const cuts = connections.ids().map((id) => cutOff(id, 'Server shutting down'));
          void Promise.all(cuts).then(() => resolve());
        }, deps.shutdownTimeoutMs);
      });
      await Promise.race([closed, graceOver]);
      clearTimeout(grace);
      // Every client now got 421 or is gone; smtp-server only half-closes, so a message still
      // arriving held its spool file open until the client went (or 5 s more). Never to be
      // acknowledged, it is discarded now; one being committed is waited for and handed over.
      for (const { stream } of transactions) if (!stream.readableEnded) stream.destroy();
      // But not without end: one that outlasts a grace more (a hung fsync) is left to finish or
      // fail on its own. Its client got 421, never its 250; the spool keeps a committed file for
      // the next start, and a temporary one is removed there.
      const replies = Promise.all([...transactions].map((transaction) => transaction.replied));
      if (!(await settlesWithin(replies, commitGraceMs)))
        log.warn(
          { pending: transactions.size },
          `stopped with ${transactions.size} spool commits still pending; they finish or fail on their own`,
        );
    },
  };
}
