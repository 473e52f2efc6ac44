/**
 * The thread behind helpers/sql.ts `querySync` on PostgreSQL: runs each query it is sent on a
 * client of its own per database, posts the rows back and wakes the waiting thread.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { parseNumbers } from '../../src/platform/db/pg-numbers.js';

parseNumbers();
const { signal, port } = workerData as { signal: Int32Array; port: MessagePort };
const clients = new Map<string, Promise<pg.Client>>();

function client(url: string): Promise<pg.Client> {
  let found = clients.get(url);
  if (found === undefined) {
    const next = new pg.Client({ connectionString: url });
    // A dropped test database ends its connections: the next query connects anew.
    next.on('error', () => clients.delete(url));
    next.on('end', () => clients.delete(url));
    found = next.connect().then(() => next);
    found.catch(() => clients.delete(url));
    clients.set(url, found);
  }
  return found;
}

port.on('message', async (request: { url: string; text: string; params: unknown[] }) => {
  let reply: { rows: unknown[] } | { error: string };
  try {
    const result = await (await client(request.url)).query(request.text, request.params);
    reply = { rows: result.rows };
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
