import test from 'ava';
import { ConnectionPool } from '../../../src/delivery/smtp/connection-pool.js';
import type { MxConnection } from '../../../src/delivery/smtp/mx-connection.js';

/** Just what the pool asks of a connection. */
function fakeConnection(host: string): MxConnection & { closed: boolean } {
  const fake = {
    target: { host, address: '192.0.2.1', port: 25 },
    transactions: 1,
    usable: true,
    closed: false,
    close() {
      fake.closed = true;
      fake.usable = false;
    },
    destroy() {
      fake.closed = true;
      fake.usable = false;
    },
    onEnd(listener: () => void) {
      listener();
    },
  };
  return fake as unknown as MxConnection & { closed: boolean };
}

function pool(maxConnections: number, perHost = maxConnections): ConnectionPool {
  return new ConnectionPool({ maxConnections, perHost, messagesPerConnection: 100, idleTimeoutMs: 60_000 });
}

const opener = (host: string, opened: MxConnection[]) => async () => {
  const connection = fakeConnection(host);
  opened.push(connection);
  return connection;
};
const wanted = () => {};
/** Settles pending promise callbacks. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a connection given back goes to the callers waiting for it, one at a time, in the order they came', async (t) => {
  const connections = pool(1);
  const opened: MxConnection[] = [];
  const first = await connections.acquire('mx.a', 'mx.a|none', opener('mx.a', opened), wanted);
  const order: string[] = [];
  const waiting = async (name: string) => {
    const connection = await connections.acquire('mx.a', 'mx.a|none', opener('mx.a', opened), wanted);
    order.push(name);
    return connection;
  };
  const second = waiting('second');
  const third = waiting('third');
  await turn();
  t.deepEqual(order, []);
  connections.release(first, 'mx.a|none');
  t.is(await second, first);
  await turn();
  t.deepEqual(order, ['second'], 'the third caller still waits');
  connections.release(first, 'mx.a|none');
  t.is(await third, first);
  t.is(opened.length, 1, 'the one connection was reused, never a second opened');
});

test('a caller waiting for a host that went down meanwhile is told at the next change in the pool', async (t) => {
  const connections = pool(1);
  const opened: MxConnection[] = [];
  const busy = await connections.acquire('mx.a', 'mx.a|none', opener('mx.a', opened), wanted);
  let down = false;
  const waiting = connections.acquire('mx.b', 'mx.b|none', opener('mx.b', opened), () => {
    if (down) throw new Error('mx.b is down');
  });
  down = true;
  connections.release(busy, 'mx.a|none');
  await t.throwsAsync(waiting, { message: 'mx.b is down' });
  t.is(opened.length, 1);
});

test('a caller that closes an idle connection to another host to make room opens its own in that room', async (t) => {
  const connections = pool(1);
  const opened: MxConnection[] = [];
  const idle = await connections.acquire('mx.a', 'mx.a|none', opener('mx.a', opened), wanted);
  connections.release(idle, 'mx.a|none');
  const other = await connections.acquire('mx.b', 'mx.b|none', opener('mx.b', opened), wanted);
  t.is(other.target.host, 'mx.b');
  t.true((idle as MxConnection & { closed: boolean }).closed, 'the idle connection to mx.a was closed');
  t.is(connections.size, 1);
});

test('a full pool whose connection goes idle under another host lets the first waiter close it and open its own', async (t) => {
  const connections = pool(1);
  const opened: MxConnection[] = [];
  const busy = await connections.acquire('mx.a', 'mx.a|none', opener('mx.a', opened), wanted);
  const forB = connections.acquire('mx.b', 'mx.b|none', opener('mx.b', opened), wanted);
  const forC = connections.acquire('mx.c', 'mx.c|none', opener('mx.c', opened), wanted);
  connections.release(busy, 'mx.a|none');
  t.is((await forB).target.host, 'mx.b');
  await turn();
  t.deepEqual(
    opened.map((c) => c.target.host),
    ['mx.a', 'mx.b'],
    'mx.c waits for the one slot, taken by mx.b',
  );
  connections.release(await forB, 'mx.b|none');
  t.is((await forC).target.host, 'mx.c');
});

test('closing the pool ends every wait for a connection', async (t) => {
  const connections = pool(1);
  const opened: MxConnection[] = [];
  await connections.acquire('mx.a', 'mx.a|none', opener('mx.a', opened), wanted);
  const waits = [1, 2, 3].map(() => connections.acquire('mx.a', 'mx.a|none', opener('mx.a', opened), wanted));
  connections.close();
  for (const wait of waits) await t.throwsAsync(wait, { message: /stopping/ });
  t.false(connections.accepting);
});

test('a slot handed to a waiter whose connection is still to be opened is aborted when the pool closes', async (t) => {
  const connections = pool(1);
  const opened: MxConnection[] = [];
  const busy = await connections.acquire('mx.a', 'mx.a|none', opener('mx.a', opened), wanted);
  let signal: AbortSignal | undefined;
  const waiting = connections.acquire(
    'mx.b',
    'mx.b|none',
    (given) => {
      signal = given;
      return new Promise((_resolve, reject) =>
        given.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    },
    wanted,
  );
  connections.release(busy, 'mx.a|none');
  await turn();
  t.false(signal?.aborted);
  connections.close();
  await t.throwsAsync(waiting, { message: 'aborted' });
  t.is(connections.size, 0);
});
