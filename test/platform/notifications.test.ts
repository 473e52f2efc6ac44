/**
 * Notifications between nodes (platform/db/notifications.ts): what one node notifies, the others
 * hear; a node hears its own at once and once; a node whose listening connection was lost hears
 * "anything may have changed" once it is back, and what is notified after.
 */
import test, { type ExecutionContext } from 'ava';
import type { Store } from '../../src/platform/db/database.js';
import { ENGINES, migratedStore } from '../helpers/engines.js';
import { query } from '../helpers/sql.js';

const eventually = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

for (const engine of ENGINES) {
  test(`${engine}: a node hears its own notification at once, once`, async (t) => {
    const store = await migratedStore(t, engine, { migrate: false });
    const heard: (string | null)[] = [];
    store.notifications.listen('posthorn_test', (payload) => heard.push(payload));
    store.notifications.notify('posthorn_test', 'a');
    t.deepEqual(heard, ['a']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.deepEqual(heard, ['a'], 'its own NOTIFY coming back is not heard again');
  });
}

/** Two nodes on one PostgreSQL database. */
async function twoNodes(t: ExecutionContext): Promise<[Store, Store]> {
  const a = await migratedStore(t, 'postgresql', { migrate: false });
  const b = await migratedStore(t, 'postgresql', { migrate: false, url: a.url as string });
  return [a, b];
}

/** Notifies from `from` until `heard` has something (the listener's LISTEN may not be up yet). */
async function until(from: Store, heard: unknown[], payload: string) {
  await eventually('the other node to hear it', () => {
    if (heard.length === 0) from.notifications.notify('posthorn_test', payload);
    return heard.length > 0;
  });
}

test('postgresql: what one node notifies, another hears', async (t) => {
  const [a, b] = await twoNodes(t);
  const heard: (string | null)[] = [];
  b.notifications.listen('posthorn_test', (payload) => heard.push(payload));
  await until(a, heard, 'first');
  t.is(heard[0], 'first');
  a.notifications.notify('posthorn_test', 'second');
  await eventually('the second notification', () => heard.includes('second'));
  // Before its LISTEN was up the node heard nothing; `first` may have been sent more than once.
  t.deepEqual(
    heard.filter((payload) => payload !== 'first'),
    ['second'],
  );
});

test('postgresql: a node whose listening connection was lost hears that anything may have changed, then what follows', async (t) => {
  const [a, b] = await twoNodes(t);
  const heard: (string | null)[] = [];
  b.notifications.listen('posthorn_test', (payload) => heard.push(payload));
  await until(a, heard, 'before');
  heard.length = 0;
  // The server ends every connection that listens, as a restart would.
  await query(
    a,
    `select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and query like 'listen %'`,
  );
  await eventually('the reconnection to be announced', () => heard.includes(null));
  heard.length = 0;
  await until(a, heard, 'after');
  t.true(heard.includes('after'));
});
