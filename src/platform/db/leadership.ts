/**
 * Singleton work across nodes: the engines that must run on one node at a time (the webhook
 * fan-out, the projections, schedules, retention, re-checks, broadcast expansion, automatic
 * incidents, provider syncs) run on the node that holds their PostgreSQL advisory lock, and on
 * another node as soon as that one is gone.
 *
 * SQLite has one node: every engine starts at once. On PostgreSQL each node keeps ONE connection of
 * its own (outside the pool) on which it holds session advisory locks, one per engine name. A lock
 * dies with its connection, so a node that dies (or loses the database) frees its engines, and the
 * other nodes, which try the locks they want every `pollMs`, take them over within that interval.
 * The node that loses its connection stops the engines it led at once, and a node that takes over
 * a lock waits a moment (TAKEOVER_MS) before it starts the engine, so the two do not overlap (the
 * server frees the lock as it ends the lost session; the loser hears of it on its own connection,
 * which a busy event loop may read after the taker's answer). The server is told to probe an idle
 * connection with TCP keepalives every few seconds, so a node whose host vanished without closing
 * its connection frees its locks in about half a minute rather than the kernel's two hours.
 *
 * The lock only decides who runs an engine; work that must never run twice at once (a cursor
 * following the event log) also takes a transaction lock of its own (`lockInTransaction`), so a
 * moment of overlap while a lost node stops can never do it twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/** What a leader runs: stopped when the lock is lost or given up. */
export interface LeaderWork {
  readonly name: string;
  stop(): Promise<void> | void;
}

export interface Leadership {
  /**
   * Runs `start()` while this node holds the lock `name` (on SQLite: at once), and stops what it
   * returned when the lock is lost. Returns an engine whose `stop` ends it and gives the lock up.
   */
  lead(name: string, start: () => LeaderWork): LeaderWork;
  /** The names whose lock this node holds now. */
  held(): string[];
  /** Who is told of locks taken and lost, and of the lock connection's errors (the server's log). */
  observe(observer: LeadershipObserver): void;
  close(): Promise<void>;
}

export interface LeadershipObserver {
  readonly onChange?: (change: { name: string; held: boolean; reason?: string }) => void;
  readonly onError?: (error: unknown) => void;
}

/**
 * How long a node that took over a lock (another node held it when it last tried) waits before it
 * starts the engine, at most `pollMs`: the node that lost it (its session ended by the server)
 * hears of it on its own connection and stops first.
 */
const TAKEOVER_MS = 250;

/** The first key of every advisory lock Posthorn takes by name (the second is the name's hash). */
export const LOCK_NAMESPACE = 7370;

/** A stable 32-bit key for a lock name (FNV-1a): the same on every node and version. */
export function lockKey(name: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/** One node: every engine runs here. */
export function localLeadership(): Leadership {
  const running = new Set<string>();
  return {
    lead(name, start) {
      const work = start();
      running.add(name);
      return {
        name: work.name,
        async stop() {
          running.delete(name);
          await work.stop();
        },
      };
    },
    held: () => [...running],
    observe() {},
    async close() {},
  };
}

export interface PostgresLeadershipOptions {
  /** Settings of the lock connection (the pool's, with one connection). */
  readonly client: pg.ClientConfig;
  /** How often a node tries the locks it wants, and checks the connection (ms). */
  readonly pollMs?: number;
  /** Told of every lock taken or lost, and of errors (never throws); `observe` replaces them. */
  readonly onChange?: (change: { name: string; held: boolean; reason?: string }) => void;
  readonly onError?: (error: unknown) => void;
}

interface Wanted {
  readonly name: string;
  readonly key: number;
  readonly start: () => LeaderWork;
  running: LeaderWork | undefined;
  stopping: Promise<void> | undefined;
  /** Another node held the lock when this one last tried: getting it now is a takeover. */
  heldElsewhere: boolean;
}

/** Session advisory locks on a connection of this node's own. */
export function postgresLeadership(options: PostgresLeadershipOptions): Leadership {
  const pollMs = options.pollMs ?? 2000;
  let observer: LeadershipObserver = { onChange: options.onChange, onError: options.onError };
  const onError = (error: unknown) => observer.onError?.(error);
  const onChange = (change: { name: string; held: boolean; reason?: string }) => observer.onChange?.(change);
  const wanted = new Map<string, Wanted>();
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let again = false;
  let closed = false;
  // One query at a time on the lock connection (a stop's unlock may come during a poll).
  let queue: Promise<unknown> = Promise.resolve();
  const query = <R extends pg.QueryResultRow = pg.QueryResultRow>(
    on: pg.Client,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> => {
    const result = queue.then(() => on.query<R>(text, values));
    queue = result.catch(() => undefined);
    return result;
  };

  const stopWork = (entry: Wanted, reason: string): Promise<void> => {
    const work = entry.running;
    if (work === undefined) return entry.stopping ?? Promise.resolve();
    entry.running = undefined;
    onChange({ name: entry.name, held: false, reason });
    entry.stopping = (async () => {
      try {
        await work.stop();
      } catch (error) {
        onError(error);
      } finally {
        entry.stopping = undefined;
      }
    })();
    return entry.stopping;
  };

  /** The connection is gone (or useless): everything led here stops now. */
  const lost = (gone: pg.Client, reason: string) => {
    if (client !== gone) return;
    client = null;
    gone.end().catch(() => {});
    for (const entry of wanted.values()) void stopWork(entry, reason);
  };

  const connect = async (): Promise<pg.Client> => {
    const next = new pg.Client({
      ...options.client,
      keepAlive: true,
      application_name: 'posthorn-leadership',
      // A query that hangs (a network cut) counts as a lost connection.
      query_timeout: Math.max(5000, pollMs * 2),
    });
    next.on('error', (error) => {
      onError(error);
      lost(next, 'the lock connection failed');
    });
    next.on('end', () => lost(next, 'the lock connection ended'));
    await next.connect();
    // The server probes this idle connection: a vanished host frees its locks in ~30 s.
    await next.query(
      'set tcp_keepalives_idle = 10; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 3',
    );
    return next;
  };

  const tick = async () => {
    if (closed) return;
    try {
      if (client === null) {
        const next = await connect();
        if (closed) {
          await next.end();
          return;
        }
        client = next;
      }
      const current = client;
      const free = [...wanted.values()].filter((entry) => entry.running === undefined && !entry.stopping);
      if (free.length === 0) {
        await query(current, 'select 1');
        return;
      }
      const { rows } = await query<{ key: number; got: boolean }>(
        current,
        'select k as key, pg_try_advisory_lock($1::int, k) as got from unnest($2::int[]) as k',
        [LOCK_NAMESPACE, free.map((entry) => entry.key)],
      );
      const got = new Set(rows.filter((row) => row.got).map((row) => Number(row.key)));
      const taken = free.filter((entry) => got.has(entry.key));
      for (const entry of free) if (!got.has(entry.key)) entry.heldElsewhere = true;
      if (taken.length === 0) return;
      // The server frees a lock as it ends the session of the node that held it, which hears of it
      // on its own connection: a takeover waits a moment, so that one has stopped before this
      // starts. A lock nobody held when this node first tried starts at once (a node's boot).
      if (taken.some((entry) => entry.heldElsewhere)) await sleep(Math.min(TAKEOVER_MS, pollMs));
      for (const entry of taken) entry.heldElsewhere = false;
      for (const entry of taken) {
        // A lock taken on a connection lost meanwhile went with it.
        if (client !== current) return;
        if (closed || !wanted.has(entry.name)) {
          await query(current, 'select pg_advisory_unlock($1::int, $2::int)', [LOCK_NAMESPACE, entry.key]);
          continue;
        }
        try {
          entry.running = entry.start();
          onChange({ name: entry.name, held: true });
        } catch (error) {
          onError(error);
          await query(current, 'select pg_advisory_unlock($1::int, $2::int)', [LOCK_NAMESPACE, entry.key]);
        }
      }
    } catch (error) {
      onError(error);
      if (client !== null) lost(client, `the lock connection failed: ${String(error)}`);
    }
  };

  const run = () => {
    if (ticking) {
      again = true;
      return;
    }
    ticking = tick().finally(() => {
      ticking = undefined;
      if (again) {
        again = false;
        run();
      } else schedule(pollMs);
    });
  };

  const schedule = (ms: number) => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  };

  return {
    lead(name, start) {
      if (wanted.has(name)) throw new Error(`${name} is led already`);
      const entry: Wanted = {
        name,
        key: lockKey(name),
        start,
        running: undefined,
        stopping: undefined,
        heldElsewhere: false,
      };
      wanted.set(name, entry);
      // Try at once: a single node must not wait a poll interval for its own engines.
      schedule(0);
      return {
        name,
        async stop() {
          wanted.delete(name);
          const held = entry.running !== undefined;
          await stopWork(entry, 'stopped');
          if (held && client !== null)
            await query(client, 'select pg_advisory_unlock($1::int, $2::int)', [
              LOCK_NAMESPACE,
              entry.key,
            ]).catch(onError);
        },
      };
    },
    held: () => [...wanted.values()].filter((entry) => entry.running !== undefined).map((e) => e.name),
    observe(next) {
      observer = next;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await ticking;
      await Promise.all([...wanted.values()].map((entry) => stopWork(entry, 'closing')));
      const open = client;
      client = null;
      // Ending the session frees every lock it held.
      await open?.end().catch(() => {});
    },
  };
}
