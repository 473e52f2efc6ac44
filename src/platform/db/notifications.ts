/**
 * Wake-ups and cache invalidations between the nodes sharing a store: a capability says that
 * something changed on a channel ("events were appended", "a domain's DKIM keys changed") and
 * every listener of that channel hears it, on this node at once and on the others soon after.
 *
 * SQLite has one node: listeners are this process's. PostgreSQL has several: `notify` tells this
 * node's listeners at once and the other nodes through NOTIFY; each node LISTENs on one connection
 * of its own (opened with the first listener, outside the pool). A node ignores the echo of its own
 * notifications. Notifications are hints, never the data: a listener re-reads the store. When the
 * listening connection is lost, notifications sent meanwhile are lost too, so once it is back every
 * listener is called with `null` ("anything may have changed"): a cache then drops everything, a
 * dispatcher looks for work.
 *
 * Remote notifications of one channel and payload are coalesced: while one NOTIFY is on its way,
 * any number of calls send one more after it, so a busy node costs the database a bounded number.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';

/** `payload` as notified, or null when notifications may have been missed (a reconnection). */
export type NotificationListener = (payload: string | null) => void;

export interface Notifications {
  /** Calls `listener` for every notification of `channel` (a lower-case SQL identifier); returns how to stop. */
  listen(channel: string, listener: NotificationListener): () => void;
  /** Tells every listener of `channel`, on every node; never throws (a lost hint only delays). */
  notify(channel: string, payload?: string): void;
  close(): Promise<void>;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
/** PostgreSQL refuses payloads of 8,000 bytes or more; ours are short keys. */
const MAX_PAYLOAD = 7000;

function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel)) throw new Error(`not a notification channel name: ${channel}`);
}

/** This process only (SQLite: one node). */
export function localNotifications(): Notifications {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    listen(channel, listener) {
      checkChannel(channel);
      emitter.on(channel, listener);
      return () => emitter.off(channel, listener);
    },
    notify(channel, payload = '') {
      emitter.emit(channel, payload);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

export interface PostgresNotificationOptions {
  /** Connection settings of the listening connection (the pool's, with one connection). */
  readonly client: pg.ClientConfig;
  /** Where NOTIFY is sent from. */
  readonly pool: Pick<pg.Pool, 'query'>;
  /** Called with errors of the listening connection and of NOTIFY (they never throw). */
  readonly onError?: (error: unknown) => void;
  /** First wait before reconnecting the listening connection (doubling up to 10 s). */
  readonly retryMs?: number;
}

/** LISTEN/NOTIFY between nodes, and this node's listeners at once. */
export function postgresNotifications(options: PostgresNotificationOptions): Notifications {
  const node = randomUUID().slice(0, 8);
  const local = new EventEmitter();
  local.setMaxListeners(0);
  const channels = new Map<string, number>();
  const onError = options.onError ?? (() => {});
  const firstRetry = options.retryMs ?? 500;
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let retry: NodeJS.Timeout | undefined;
  let retryMs = firstRetry;
  let closed = false;
  let everConnected = false;
  /** Remote notifications in flight, and whether another is wanted after each. */
  const sending = new Map<string, boolean>();

  const deliver = (channel: string, payload: string | null) => {
    try {
      local.emit(channel, payload);
    } catch (error) {
      onError(error);
    }
  };

  const reconnectLater = () => {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, 10_000);
  };

  const connect = (): Promise<void> => {
    if (closed) return Promise.resolve();
    connecting ??= (async () => {
      const next = new pg.Client(options.client);
      next.on('error', (error) => {
        onError(error);
        dropped(next);
      });
      next.on('end', () => dropped(next));
      next.on('notification', (message) => {
        const raw = message.payload ?? '';
        const bar = raw.indexOf('|');
        if (bar < 0 || raw.slice(0, bar) === node) return;
        deliver(message.channel, raw.slice(bar + 1));
      });
      try {
        await next.connect();
        for (const channel of channels.keys()) await next.query(`listen ${channel}`);
      } catch (error) {
        onError(error);
        next.end().catch(() => {});
        reconnectLater();
        return;
      }
      if (closed) {
        await next.end().catch(() => {});
        return;
      }
      client = next;
      retryMs = firstRetry;
      // Whatever was notified while nobody listened is lost: every listener looks again.
      if (everConnected) for (const channel of channels.keys()) deliver(channel, null);
      everConnected = true;
    })().finally(() => {
      connecting = null;
    });
    return connecting;
  };

  const dropped = (lost: pg.Client) => {
    if (client !== lost) return;
    client = null;
    reconnectLater();
  };

  const sendRemote = (channel: string, payload: string) => {
    const key = `${channel}\n${payload}`;
    if (sending.has(key)) {
      sending.set(key, true);
      return;
    }
    sending.set(key, false);
    options.pool
      .query('select pg_notify($1, $2)', [channel, `${node}|${payload}`])
      .catch(onError)
      .finally(() => {
        const again = sending.get(key) === true;
        sending.delete(key);
        if (again && !closed) sendRemote(channel, payload);
      });
  };

  return {
    listen(channel, listener) {
      checkChannel(channel);
      local.on(channel, listener);
      const count = channels.get(channel) ?? 0;
      channels.set(channel, count + 1);
      if (count === 0) {
        if (client !== null) client.query(`listen ${channel}`).catch(onError);
        else void connect();
      }
      return () => {
        local.off(channel, listener);
        const left = (channels.get(channel) ?? 1) - 1;
        if (left > 0) channels.set(channel, left);
        else {
          channels.delete(channel);
          client?.query(`unlisten ${channel}`).catch(onError);
        }
      };
    },
    notify(channel, payload = '') {
      checkChannel(channel);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD) throw new Error('a notification payload must stay short');
      deliver(channel, payload);
      if (!closed) sendRemote(channel, payload);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      local.removeAllListeners();
      await connecting;
      const open = client;
      client = null;
      await open?.end().catch(() => {});
    },
  };
}
