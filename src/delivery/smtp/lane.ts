/**
 * Room `delivery/smtp/`, after compose. The SMTP transaction: a lane at work (this file) takes a
 * connection from its pool (connection-pool.ts, open-host.ts, mx-connection.ts) within its rate
 * (token-bucket.ts), skips hosts that are down (down-hosts.ts), sends the envelope with its VERP
 * return path (verp.ts) and the rendered bytes, and turns the replies into one outcome per
 * recipient (transaction-outcomes.ts, recipient-limit.ts); test sends go to the built-in sink
 * instead (sandbox-sink.ts).
 *
 * It must never write to the store: it returns outcomes, and outcomes/ records them.
 *
 * A provider lane at work: its budget (connections, messages per connection, rate) applied to
 * real SMTP transactions. `transmit` sends one job's message to the first MX host that takes a
 * connection, in preference order (RFC 5321 §5.1: try the next MX when one cannot be reached or
 * answers the greeting with a failure), and returns one outcome per recipient. Recipients the
 * server refused as too many for one transaction go in the next one on the same connection, at
 * once (recipient-limit.ts).
 *
 * Hosts that refused or timed out a connection are remembered as down for a minute, so that the
 * jobs behind them are deferred at once instead of each waiting out a connect timeout; a failed
 * TLS handshake holds back only the jobs that need that TLS level (down-hosts.ts). Under the
 * opportunistic TLS policy a host whose TLS handshake fails is tried again in plaintext (RFC 7435
 * §3: opportunistic security never makes delivery worse than no security). Connections are pooled
 * per host and TLS level: a connection opened at one level never carries a job that needs another.
 */
import type { LaneConfig } from '../../platform/config/schema.js';
import type { DnsResolver } from '../../platform/dns/resolver.js';
import type { Logger } from '../../platform/log.js';
import { transportFailureOf } from '../replies/bounce-classifier.js';
import { ConnectionPool } from './connection-pool.js';
import { DownHosts, HostDown } from './down-hosts.js';
import type {
  ConnectOptions,
  Envelope,
  MxConnection,
  MxTarget,
  SmtpError,
  TlsMode,
  TransactionReplies,
} from './mx-connection.js';
import {
  type Outcome,
  outcomeOfError,
  outcomeOfTransport,
  type PerRecipient,
  RELEASED,
} from '../replies/outcome.js';
import { openHost } from './open-host.js';
import { sendOverLimit } from './recipient-limit.js';
import { addressesOf, type MxRoute } from '../routing/route.js';
import { SourceAddresses, type SourcePort } from '../routing/source-addresses.js';
import { TokenBucket } from './token-bucket.js';
import { resultOfError } from './transaction-outcomes.js';

export interface LaneSettings {
  readonly port: number;
  readonly ehloName: string;
  readonly tls: 'opportunistic' | 'require';
  readonly localAddresses: readonly string[];
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly ca?: string | undefined;
}

export interface LaneDeps {
  readonly dns: DnsResolver;
  readonly settings: LaneSettings;
  readonly log: Logger;
  /** Opens a connection; injectable for tests. */
  readonly connect: (target: MxTarget, options: ConnectOptions) => Promise<MxConnection>;
  /** The shared source addresses now; absent, `settings.localAddresses`. */
  readonly sources?: Pick<SourcePort, 'shared'>;
}

export interface Transmission {
  /**
   * RELEASED: the engine stopped before a follow-up carried the recipients a refusal over the
   * server's limit left (recipient-limit.ts); the others' outcomes are in `answered`.
   */
  readonly result: Outcome | PerRecipient | typeof RELEASED;
  /** The host that answered, or null when none could be reached. */
  readonly mxHost: string | null;
  readonly secure: boolean;
}

/** One message on its way, and where the outcomes of its ended transactions go. */
interface Mail {
  readonly envelope: Envelope;
  readonly message: Buffer;
  readonly answered: Map<string, Outcome>;
  /** The project's dedicated source address, when its mail leaves from one now. */
  readonly source: string | undefined;
}

const PLAINTEXT_AFTER_TLS_FAILURE_MS = 60 * 60_000;

/** Connections are pooled per host, TLS level and (dedicated) source address. */
const poolKey = (host: string, tls: TlsMode, source: string | undefined) =>
  source === undefined ? `${host}|${tls}` : `${host}|${tls}|${source}`;

export class Lane {
  readonly config: LaneConfig;
  readonly name: string;
  readonly key: string;
  /** Jobs this lane holds in memory (claimed, not yet recorded). */
  held = 0;
  /** How many jobs the lane may hold: enough to keep every connection busy, and no more. */
  readonly highWater: number;
  /** The last reputation block a provider answered, for stats and health. */
  blocked: { readonly at: number; readonly reply: string } | null = null;
  readonly #deps: LaneDeps;
  readonly #pool: ConnectionPool;
  readonly #bucket: TokenBucket;
  readonly #down = new DownHosts();
  readonly #plaintext = new Map<string, number>();
  readonly #sources: SourceAddresses;

  constructor(config: LaneConfig, deps: LaneDeps) {
    this.config = config;
    this.name = config.name;
    this.key = `${config.traffic}/${config.name}`;
    this.#deps = deps;
    this.highWater = Math.max(16, config.max_connections * 4);
    this.#pool = new ConnectionPool({
      maxConnections: config.max_connections,
      perHost: config.connections_per_mx,
      messagesPerConnection: config.messages_per_connection,
      idleTimeoutMs: deps.settings.idleTimeoutMs,
    });
    this.#bucket = new TokenBucket({ ratePerSecond: config.rate_per_second });
    const { sources } = deps;
    this.#sources = new SourceAddresses(sources ? () => sources.shared() : deps.settings.localAddresses);
  }

  /** Room for more jobs in memory. */
  get room(): number {
    return Math.max(0, this.highWater - this.held);
  }

  get connections(): number {
    return this.#pool.size;
  }

  /**
   * Sends one message to the route's hosts; never throws. `answered` gets the outcomes of each
   * transaction that ends (the first, then each follow-up of recipient-limit.ts) as it ends.
   * `source` is the project's dedicated address when its mail leaves from one now: connections are
   * pooled per source, so a dedicated connection never carries another project's mail.
   */
  async transmit(
    route: MxRoute,
    envelope: Envelope,
    message: Buffer,
    answered: Map<string, Outcome>,
    source?: string,
  ): Promise<Transmission> {
    await this.#rateToken();
    const tls: TlsMode = route.tls ?? (this.config.tls === '' ? this.#deps.settings.tls : this.config.tls);
    let last: Outcome | null = null;
    let withoutAddress = 0;
    const live = route.hosts.filter((host) => this.#down.outcomeFor(host, tls) === undefined);
    for (const host of live) {
      const attempt = await this.#tryHost(host, tls, { envelope, message, answered, source });
      if ('next' in attempt) {
        last = attempt.next;
        if (attempt.noAddress === true) withoutAddress += 1;
        continue;
      }
      return attempt;
    }
    // Every MX host is known, for sure, to have no address: no retry can route the mail until the
    // domain's DNS changes (RFC 3463 X.4.4). Under an enforced MTA-STS policy the hosts are the
    // policy's, and a policy may be fixed: deferred (RFC 8461 §5.1).
    if (withoutAddress === route.hosts.length && route.hosts.length > 0 && route.mtaSts !== 'enforce') {
      const names = route.hosts.join(', ');
      last = outcomeOfTransport(
        'no_mx_address',
        `no usable MX host for ${route.domain}: ${names} have no address`,
      );
    }
    if (last === null) {
      const remembered = route.hosts
        .map((host) => this.#down.outcomeFor(host, tls))
        .find((o) => o !== undefined);
      last =
        remembered ?? outcomeOfTransport('connect_failed', `no MX host of ${route.domain} could be reached`);
    }
    return { result: last, mxHost: null, secure: false };
  }

  /** Refuses new transactions: closes idle connections and aborts those being opened. */
  close(): void {
    this.#pool.close();
  }

  /** Drops every connection at once, transactions in flight included (connection-pool.ts). */
  abort(): void {
    this.#pool.abort();
  }

  async #tryHost(
    host: string,
    wanted: TlsMode,
    mail: Mail,
  ): Promise<Transmission | { next: Outcome; noAddress?: true }> {
    const addresses = await addressesOf(this.#deps.dns, host);
    if (addresses === 'temporary')
      return { next: outcomeOfTransport('dns_temporary', `no address for ${host} now`) };
    if (addresses.length === 0)
      return { next: outcomeOfTransport('connect_failed', `${host} has no address`), noAddress: true };
    const tls = wanted === 'opportunistic' && (this.#plaintext.get(host) ?? 0) > Date.now() ? 'none' : wanted;
    let connection: MxConnection;
    try {
      connection = await this.#acquire(host, addresses, tls, mail.source);
    } catch (error) {
      // Marked down while this job waited for a connection: the failure is already remembered.
      if (error instanceof HostDown) return { next: error.outcome };
      const failure = transportFailureOf(error);
      if (failure === 'tls_failed' && tls === 'opportunistic') {
        this.#plaintext.set(host, Date.now() + PLAINTEXT_AFTER_TLS_FAILURE_MS);
        return this.#tryHost(host, wanted, mail);
      }
      const outcome = outcomeOfError(error);
      // A host that answered (a 421 greeting) is alive; one that did not is skipped for a while.
      if ((error as SmtpError).response === undefined) this.#down.mark(host, tls, error, outcome);
      return { next: outcome };
    }
    return this.#send(connection, tls, mail, true);
  }

  async #send(connection: MxConnection, tls: TlsMode, mail: Mail, mayRetry: boolean): Promise<Transmission> {
    const { envelope, message, answered } = mail;
    const key = poolKey(connection.target.host, tls, mail.source);
    const reused = connection.transactions > 0;
    let replies: TransactionReplies;
    try {
      replies = await connection.send(envelope, message);
    } catch (error) {
      const err = error as SmtpError;
      const secure = connection.secure;
      if (connection.usable && (await connection.reset())) this.#pool.release(connection, key);
      else this.#pool.discard(connection);
      // A reused connection the server dropped while idle: try once more on a fresh one.
      if (mayRetry && reused && err.response === undefined && err.code !== 'EMESSAGE') {
        const fresh = await this.#tryHost(connection.target.host, tls, mail);
        return 'next' in fresh ? { result: fresh.next, mxHost: null, secure: false } : fresh;
      }
      return { result: resultOfError(err, envelope), mxHost: connection.target.host, secure };
    }
    const outcomes = new Map<string, Outcome>();
    const answer = (rcpt: string, outcome: Outcome) => {
      outcomes.set(rcpt, outcome);
      answered.set(rcpt, outcome);
    };
    const secure = connection.secure;
    // A follow-up is one more message to the server: it takes a token of the rate like the first.
    const accepting = async () => {
      if (!this.#pool.accepting) return false;
      await this.#rateToken();
      return this.#pool.accepting;
    };
    const followUps = await sendOverLimit(connection, envelope, message, replies, answer, accepting);
    if (followUps.reusable) this.#pool.release(connection, key);
    else this.#pool.discard(connection);
    // Stopping before a follow-up carried some recipients: the job goes back with them, untried.
    const result = followUps.unsent.length > 0 ? RELEASED : ({ kind: 'per_recipient', outcomes } as const);
    return { result, mxHost: connection.target.host, secure };
  }

  #acquire(
    host: string,
    addresses: readonly string[],
    tls: TlsMode,
    source: string | undefined,
  ): Promise<MxConnection> {
    return this.#pool.acquire(
      host,
      poolKey(host, tls, source),
      (signal) =>
        openHost(
          this.#deps.connect,
          this.#deps.settings,
          this.#sources,
          host,
          addresses,
          tls,
          source,
          signal,
        ),
      () => {
        const down = this.#down.outcomeFor(host, tls);
        if (down !== undefined) throw new HostDown(host, down);
      },
    );
  }

  async #rateToken(): Promise<void> {
    while (!this.#bucket.take()) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, this.#bucket.waitMs())));
    }
  }
}
