/**
 * Raw SQL from a test against the server's store on either engine: `?` placeholders, rows as
 * objects. On SQLite the raw handle runs it; on PostgreSQL the pool does, the placeholders
 * numbered ($1, $2, ...). For tests that set up or read rows the API does not reach.
 *
 * @example
 *   const [row] = await query<{ n: number }>(ph.server.kernel.store, 'select count(*) as n from events where type = ?', 'email.sent');
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { Store } from '../../src/platform/db/database.js';

export async function query<T = Record<string, unknown>>(
  store: Store,
  text: string,
  ...params: unknown[]
): Promise<T[]> {
  if (store.engine === 'sqlite') {
    const statement = store.sqlite.prepare(text);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  }
  let n = 0;
  const numbered = text.replace(/\?/g, () => `$${++n}`);
  const result = await (store.pool as NonNullable<Store['pool']>).query(numbered, params);
  return result.rows as T[];
}

/**
 * Makes every insert into `table` fail with `message` (when `when` holds, an SQL condition on
 * `new`), on either engine: a test's way to break a write in the middle of a transaction.
 * `event: 'update'` breaks updates of its rows instead.
 */
export async function failInserts(
  store: Store,
  options: { name: string; table: string; message: string; when?: string; event?: 'insert' | 'update' },
): Promise<void> {
  const { name, table, message, when, event = 'insert' } = options;
  if (store.engine === 'sqlite') {
    store.sqlite.exec(
      `create trigger ${name} before ${event} on ${table} ${when ? `when (${when})` : ''}
       begin select raise(abort, '${message}'); end`,
    );
    return;
  }
  await query(
    store,
    `create function ${name}() returns trigger language plpgsql as $$
     begin
       if ${when ?? 'true'} then raise exception '${message}'; end if;
       return new;
     end $$`,
  );
  await query(
    store,
    `create trigger ${name} before ${event} on ${table} for each row execute function ${name}()`,
  );
}

/** Removes a trigger `failInserts` made. */
export async function stopFailingInserts(store: Store, name: string, table: string): Promise<void> {
  if (store.engine === 'sqlite') store.sqlite.exec(`drop trigger ${name}`);
  else {
    await query(store, `drop trigger ${name} on ${table}`);
    await query(store, `drop function ${name}()`);
  }
}

let bridge: { port: MessagePort; signal: Int32Array } | undefined;

/**
 * `query` synchronously, for helpers whose callers read rows without awaiting. On PostgreSQL a
 * thread of its own (sql-sync-worker.ts) runs the query while this one waits for its rows, a
 * round trip long (spawning a client per query blocked every test server of the process).
 */
export function querySync<T = Record<string, unknown>>(
  store: Store,
  url: string,
  text: string,
  params: readonly unknown[],
): T[] {
  if (store.engine === 'sqlite') {
    const statement = store.sqlite.prepare(text);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  }
  if (bridge === undefined) {
    const { port1, port2 } = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(new URL('./sql-sync-worker.js', import.meta.url), {
      workerData: { signal, port: port2 },
      transferList: [port2],
    });
    worker.unref();
    port1.unref();
    bridge = { port: port1, signal };
  }
  let n = 0;
  const numbered = text.replace(/\?/g, () => `$${++n}`);
  Atomics.store(bridge.signal, 0, 0);
  bridge.port.postMessage({ url, text: numbered, params: [...params] });
  if (Atomics.wait(bridge.signal, 0, 0, 30_000) === 'timed-out') throw new Error(`no answer to ${text}`);
  const reply = receiveMessageOnPort(bridge.port)?.message as { rows: T[] } | { error: string } | undefined;
  if (reply === undefined) throw new Error(`no answer to ${text}`);
  if ('error' in reply) throw new Error(`${reply.error} (${text})`);
  // A bytea column crosses the thread as a Uint8Array: a Buffer again, as `pg` and SQLite hand it.
  for (const row of reply.rows as Record<string, unknown>[])
    for (const [column, value] of Object.entries(row))
      if (value instanceof Uint8Array && !Buffer.isBuffer(value))
        row[column] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return reply.rows;
}
