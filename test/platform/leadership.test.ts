/**
 * Singleton engines across nodes (platform/db/leadership.ts): on PostgreSQL exactly one node runs
 * each engine, the holder of its advisory lock; when that node stops, or its connection to the
 * database dies, another node takes the engine over within a poll interval. On SQLite (one node)
 * every engine runs at once.
 */
import test, { type ExecutionContext } from 'ava';
import pg from 'pg';
import {
  LOCK_NAMESPACE,
  type Leadership,
  localLeadership,
  lockKey,
  postgresLeadership,
} from '../../src/platform/db/leadership.js';
import { adminUrl, freshDatabase } from '../helpers/postgres.js';

const POLL_MS = 100;

const eventually = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** An engine that counts how many nodes run it at once, and the most that ever did. */
function countedEngine() {
  const state = { running: new Set<string>(), most: 0, starts: 0 };
  const startOn = (node: string) => () => {
    state.running.add(node);
    state.starts += 1;
    state.most = Math.max(state.most, state.running.size);
    return { name: 'projection', stop: () => void state.running.delete(node) };
  };
  return { state, startOn };
}

async function node(t: ExecutionContext, url: string, pollMs = POLL_MS): Promise<Leadership> {
  const leadership = postgresLeadership({ client: { connectionString: url }, pollMs });
  t.teardown(() => leadership.close());
  return leadership;
}

test('sqlite: a single node runs every engine at once', async (t) => {
  const leadership = localLeadership();
  const { state, startOn } = countedEngine();
  const work = leadership.lead('projection', startOn('a'));
  t.deepEqual([...state.running], ['a']);
  t.deepEqual(leadership.held(), ['projection']);
  await work.stop();
  t.is(state.running.size, 0);
});

test('postgresql: of two nodes wanting an engine, one runs it; the other takes over when it stops', async (t) => {
  const { url } = await freshDatabase(t);
  const [a, b] = [await node(t, url), await node(t, url)];
  const { state, startOn } = countedEngine();
  const workA = a.lead('projection', startOn('a'));
  await eventually('node a to run the engine', () => state.running.has('a'));
  b.lead('projection', startOn('b'));
  await new Promise((resolve) => setTimeout(resolve, POLL_MS * 5));
  t.deepEqual([...state.running], ['a'], 'node b waits while node a leads');
  t.deepEqual(b.held(), []);

  await workA.stop();
  await eventually('node b to take the engine over', () => state.running.has('b'), POLL_MS * 20);
  t.deepEqual([...state.running], ['b']);
  t.is(state.most, 1, 'never two nodes at once');
});

test('postgresql: each engine has its own lock, so two nodes may share the work', async (t) => {
  const { url } = await freshDatabase(t);
  const [a, b] = [await node(t, url), await node(t, url)];
  const ran: string[] = [];
  const engine = (node: string, name: string) => () => {
    ran.push(`${node}:${name}`);
    return { name, stop() {} };
  };
  a.lead('retention', engine('a', 'retention'));
  await eventually('node a to run retention', () => ran.includes('a:retention'));
  b.lead('retention', engine('b', 'retention'));
  b.lead('scheduler', engine('b', 'scheduler'));
  await eventually('node b to run the scheduler', () => ran.includes('b:scheduler'));
  await new Promise((resolve) => setTimeout(resolve, POLL_MS * 3));
  t.deepEqual(ran.sort(), ['a:retention', 'b:scheduler']);
});

test('postgresql: a node whose database connection dies stops its engines, and another node takes them over', async (t) => {
  const { url } = await freshDatabase(t);
  // Node a comes back slowly (its next try is 5 s away), as a node whose host is gone never does.
  const [a, b] = [await node(t, url, 5000), await node(t, url)];
  const { state, startOn } = countedEngine();
  a.lead('projection', startOn('a'));
  await eventually('node a to run the engine', () => state.running.has('a'));
  b.lead('projection', startOn('b'));

  // The server ends node a's lock session, as when node a's host or network goes away.
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  t.teardown(() => admin.end());
  const { rowCount } = await admin.query(
    `select pg_terminate_backend(pid) from pg_locks
      where locktype = 'advisory' and granted and classid = $1 and objid = $2::oid
        and database = (select oid from pg_database where datname = $3)`,
    [LOCK_NAMESPACE, lockKey('projection') >>> 0, new URL(url).pathname.slice(1)],
  );
  t.is(rowCount, 1, 'node a held the lock');

  await eventually('node b to take the engine over', () => state.running.has('b'), POLL_MS * 30);
  t.false(state.running.has('a'), 'node a stopped the engine when its lock connection died');
  t.deepEqual(a.held(), []);
  t.deepEqual(b.held(), ['projection']);
});
