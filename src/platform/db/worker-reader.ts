/**
 * A worker thread's own read-only way into the store, for reads too large to cross the event loop
 * (the render workers read message bodies and stored renderings themselves). The main thread hands
 * the worker `store.workerAccess` (plain data) and the worker opens its own connection: SQLite,
 * the database file read-only (WAL lets it read beside the writer); PostgreSQL, one client of its
 * own (connected on first use, again after a loss). Each query is written for both engines; only
 * this file picks which one runs.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { parseNumbers } from './pg-numbers.js';

/** The settings of a worker's PostgreSQL client, as plain data. */
export interface WorkerClientConfig {
  readonly connectionString?: string;
  readonly password?: string;
  readonly connectionTimeoutMillis?: number;
}

export type WorkerAccess =
  | { readonly engine: 'sqlite'; readonly file: string }
  | { readonly engine: 'postgresql'; readonly client: WorkerClientConfig };

/** A query in each engine's SQL: `?` placeholders on SQLite, `$1`, `$2`... on PostgreSQL. */
export interface EngineQuery {
  readonly sqlite: string;
  readonly postgresql: string;
}

export interface WorkerReader {
  /** The first row the query returns, or undefined; synchronous on SQLite. */
  first<T>(query: EngineQuery, params: readonly unknown[]): T | undefined | Promise<T | undefined>;
  close(): Promise<void>;
}

/** What of the pool's settings a worker's client needs (no functions: it crosses to a thread). */
export function workerClientConfig(config: pg.ClientConfig): WorkerClientConfig {
  return {
    ...(config.connectionString === undefined ? {} : { connectionString: config.connectionString }),
    ...(typeof config.password === 'string' ? { password: config.password } : {}),
    ...(config.connectionTimeoutMillis === undefined
      ? {}
      : { connectionTimeoutMillis: config.connectionTimeoutMillis }),
  };
}

export function openWorkerReader(access: WorkerAccess): WorkerReader {
  return access.engine === 'sqlite' ? sqliteReader(access.file) : postgresReader(access.client);
}

function sqliteReader(file: string): WorkerReader {
  let connection: SQLite.Database | null = null;
  const statements = new Map<string, SQLite.Statement>();
  return {
    first<T>(query: EngineQuery, params: readonly unknown[]): T | undefined {
      connection ??= new SQLite(file, { readonly: true, fileMustExist: true });
      let statement = statements.get(query.sqlite);
      if (statement === undefined) {
        statement = connection.prepare(query.sqlite);
        statements.set(query.sqlite, statement);
      }
      return statement.get(...params) as T | undefined;
    },
    async close() {
      connection?.close();
      connection = null;
    },
  };
}

function postgresReader(config: WorkerClientConfig): WorkerReader {
  parseNumbers();
  let client: Promise<pg.Client> | null = null;
  const names = new Map<string, string>();
  const connect = (): Promise<pg.Client> => {
    if (client !== null) return client;
    const next = new pg.Client({ ...config, application_name: 'posthorn-worker' });
    const opening = next.connect().then(() => next);
    client = opening;
    // A lost connection is dropped; the next query connects anew.
    const drop = () => {
      if (client === opening) client = null;
    };
    next.on('error', drop);
    next.on('end', drop);
    opening.catch(drop);
    return opening;
  };
  /** The query before, settled: a client runs one query at a time (pg queues the rest, deprecated since pg 8.x). */
  let previous: Promise<unknown> = Promise.resolve();
  return {
    first<T>(query: EngineQuery, params: readonly unknown[]): Promise<T | undefined> {
      let name = names.get(query.postgresql);
      if (name === undefined) {
        name = `posthorn_worker_${names.size + 1}`;
        names.set(query.postgresql, name);
      }
      const statement = name;
      const run = previous.then(async () => {
        const connection = await connect();
        // Named: prepared once per connection, then only executed.
        const result = await connection.query({
          name: statement,
          text: query.postgresql,
          values: [...params],
        });
        return result.rows[0] as T | undefined;
      });
      previous = run.catch(() => {});
      return run;
    },
    async close() {
      const open = client;
      client = null;
      if (open) await (await open.catch(() => null))?.end().catch(() => {});
    },
  };
}
