/**
 * The SMTP connections of one lane: at most `max_connections` open at once, at most
 * `connections_per_mx` to one MX host, each reused for up to `messages_per_connection`
 * transactions and closed after `idle_timeout` without work (RFC 5321 §4.5.3.2 lets a client keep
 * a session for several messages; big providers expect it). A caller that finds no free slot
 * waits; when the lane is full of idle connections to other hosts, the oldest idle one is closed
 * to make room. Connections never cross lanes, so one lane's stalled host cannot take another's.
 *
 * The pool knows every connection it has handed out or is opening, so that a stopping engine can
 * drop them (`abort`): no socket, and no transaction on it, outlives the engine's stop.
 */
import type { MxConnection } from './mx-connection.js';

export interface PoolLimits {
  readonly maxConnections: number;
  readonly perHost: number;
  readonly messagesPerConnection: number;
  readonly idleTimeoutMs: number;
}

/** What a caller of `acquire` wants. */
interface Want {
  readonly host: string;
  readonly key: string;
  readonly stillWanted: () => void;
}

interface Waiter extends Want {
  readonly resolve: (got: MxConnection | AbortController) => void;
  readonly reject: (error: unknown) => void;
}

interface Idle {
  readonly connection: MxConnection;
  readonly key: string;
  readonly timer: NodeJS.Timeout;
}

export class ConnectionPool {
  readonly #limits: PoolLimits;
  /** Open or opening connections per host name. */
  readonly #perHost = new Map<string, number>();
  #total = 0;
  readonly #idle: Idle[] = [];
  /** Connections handed out for a transaction and not yet given back. */
  readonly #busy = new Set<MxConnection>();
  /** Connections being opened: aborted when the pool closes. */
  readonly #opening = new Set<AbortController>();
  /** Connections said QUIT on and not yet ended: a server slow to answer must not keep them open. */
  readonly #quitting = new Set<MxConnection>();
  /** Callers waiting for a connection, in the order they came. */
  readonly #waiters = new Set<Waiter>();
  #closed = false;
  /** `#wake` is handing out connections; `#changed`: something changed meanwhile, go round again. */
  #serving = false;
  #changed = false;

  constructor(limits: PoolLimits) {
    this.#limits = limits;
  }

  /** Open or opening connections. */
  get size(): number {
    return this.#total;
  }

  /** False once the pool is closed: no new transaction may start, on a new connection or a held one. */
  get accepting(): boolean {
    return !this.#closed;
  }

  get idleCount(): number {
    return this.#idle.length;
  }

  /**
   * A connection to `host` under `key` (host, TLS mode): an idle one, or a new one from `open`
   * once a slot is free. `stillWanted` is asked after every wait; when it throws, the wait ends
   * with that error (the host went down meanwhile). `open` is given a signal that aborts the
   * connection when the pool closes before it is open.
   */
  async acquire(
    host: string,
    key: string,
    open: (signal: AbortSignal) => Promise<MxConnection>,
    stillWanted: () => void,
  ): Promise<MxConnection> {
    const waiter = { host, key, stillWanted };
    const got =
      this.#stepFirst(waiter) ??
      (await new Promise<MxConnection | AbortController>((resolve, reject) =>
        this.#waiters.add({ ...waiter, resolve, reject }),
      ));
    if (!(got instanceof AbortController)) return got;
    try {
      const connection = await open(got.signal);
      // Opened just as the pool closed: no transaction may start on it.
      if (this.#closed) {
        connection.destroy();
        throw stopping();
      }
      return this.#lend(connection);
    } catch (error) {
      this.#count(host, -1);
      throw error;
    } finally {
      this.#opening.delete(got);
    }
  }

  /** `#step` for a caller that has not waited yet: what it frees to make room is its own to take. */
  #stepFirst(waiter: Want): MxConnection | AbortController | null {
    this.#serving = true;
    try {
      return this.#step(waiter);
    } finally {
      this.#serving = false;
      if (this.#changed) this.#wake();
    }
  }

  /**
   * What a caller gets now: an idle connection, a slot to open one in (its count taken and its
   * abort controller known to the pool), or null when it must wait. Throws when the pool is
   * closed or the caller no longer wants the host (`stillWanted`).
   */
  #step(waiter: Want): MxConnection | AbortController | null {
    const { host, key } = waiter;
    if (this.#closed) throw stopping();
    waiter.stillWanted();
    const idle = this.#takeIdle(key);
    if (idle !== null) return this.#lend(idle);
    // The host's connections are all taken, some idle under another key (TLS level): one of
    // those makes room, rather than the caller waiting out its idle timeout.
    if ((this.#perHost.get(host) ?? 0) >= this.#limits.perHost) this.#evictIdleOf(host);
    const hostCount = this.#perHost.get(host) ?? 0;
    if (this.#total >= this.#limits.maxConnections && hostCount < this.#limits.perHost) this.#evictIdle();
    if (this.#total < this.#limits.maxConnections && hostCount < this.#limits.perHost) {
      this.#count(host, 1);
      const opening = new AbortController();
      this.#opening.add(opening);
      return opening;
    }
    return null;
  }

  /** Gives a connection back after a transaction: kept for the next one, or closed. */
  release(connection: MxConnection, key: string): void {
    if (!this.#busy.delete(connection)) {
      // Already dropped by `abort`; its late result changes nothing.
      connection.destroy();
      return;
    }
    const reusable =
      !this.#closed && connection.usable && connection.transactions < this.#limits.messagesPerConnection;
    if (!reusable) {
      this.#quit(connection);
      this.#count(connection.target.host, -1);
      return;
    }
    const timer = setTimeout(() => {
      const index = this.#idle.findIndex((entry) => entry.connection === connection);
      if (index >= 0) this.#drop(index);
    }, this.#limits.idleTimeoutMs);
    timer.unref();
    this.#idle.push({ connection, key, timer });
    this.#wake();
  }

  /** Forgets a connection that broke while in use. */
  discard(connection: MxConnection): void {
    connection.destroy();
    if (this.#busy.delete(connection)) this.#count(connection.target.host, -1);
  }

  /**
   * Refuses new connections and transactions: closes idle connections and aborts the ones being
   * opened (no transaction has started on them); busy ones are closed as they come back.
   */
  close(): void {
    this.#closed = true;
    while (this.#idle.length > 0) this.#drop(this.#idle.length - 1);
    for (const opening of this.#opening) opening.abort();
    this.#wake();
  }

  /**
   * Closes the pool and drops the busy connections at once, their transactions unfinished: the
   * server's reply to the end of DATA is never read, and nothing they would still report reaches
   * the caller. A server that already had the final dot may keep the message (the synchronization
   * gap of RFC 1047); like any broken transaction (RFC 5321 §3.8: as if 451), the caller releases
   * their jobs to be tried again, so a stop may cause a duplicate but never a loss.
   */
  abort(): void {
    this.close();
    for (const connection of this.#busy) {
      connection.destroy();
      this.#count(connection.target.host, -1);
    }
    this.#busy.clear();
    for (const connection of this.#quitting) connection.destroy();
    this.#quitting.clear();
  }

  #lend(connection: MxConnection): MxConnection {
    this.#busy.add(connection);
    return connection;
  }

  #takeIdle(key: string): MxConnection | null {
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      const entry = this.#idle[i] as Idle;
      if (entry.key !== key) continue;
      this.#idle.splice(i, 1);
      clearTimeout(entry.timer);
      if (entry.connection.usable) return entry.connection;
      // The server hung up while it sat idle.
      this.#count(entry.connection.target.host, -1);
    }
    return null;
  }

  #evictIdle(): void {
    if (this.#idle.length > 0) this.#drop(0);
  }

  /** Closes the oldest idle connection to `host` (its key differs: `#takeIdle` found none). */
  #evictIdleOf(host: string): void {
    const index = this.#idle.findIndex((entry) => entry.connection.target.host === host);
    if (index >= 0) this.#drop(index);
  }

  /** Closes (QUIT) an idle connection. */
  #drop(index: number): void {
    const [entry] = this.#idle.splice(index, 1) as [Idle];
    clearTimeout(entry.timer);
    this.#quit(entry.connection);
    this.#count(entry.connection.target.host, -1);
  }

  /** QUIT, remembered until the connection ends, so that `abort` can cut a slow goodbye short. */
  #quit(connection: MxConnection): void {
    connection.close();
    this.#quitting.add(connection);
    connection.onEnd(() => this.#quitting.delete(connection));
  }

  #count(host: string, delta: number): void {
    const next = (this.#perHost.get(host) ?? 0) + delta;
    if (next <= 0) this.#perHost.delete(host);
    else this.#perHost.set(host, next);
    this.#total += delta;
    if (delta < 0) this.#wake();
  }

  /**
   * Something changed (a connection came back or closed, the pool closed): each waiter, in the
   * order they came, takes what it now can, or is told why it no longer waits, at once. Done here
   * rather than by waking every waiter to look for itself: a lane holds several jobs per
   * connection, and each connection given back would otherwise wake all of them.
   */
  #wake(): void {
    if (this.#serving) {
      this.#changed = true;
      return;
    }
    this.#serving = true;
    try {
      do {
        this.#changed = false;
        for (const waiter of this.#waiters) {
          let got: MxConnection | AbortController | null;
          try {
            got = this.#step(waiter);
          } catch (error) {
            this.#waiters.delete(waiter);
            waiter.reject(error);
            continue;
          }
          if (got === null) continue;
          this.#waiters.delete(waiter);
          waiter.resolve(got);
        }
        // A waiter that closed an idle connection to make room changed what the others can get.
      } while (this.#changed);
    } finally {
      this.#serving = false;
    }
  }
}

function stopping(): Error {
  return new Error('the delivery engine is stopping');
}
