/**
 * Synchronous work on the raw handle beside Kysely (connection-guard.ts), on a real SQLite file: it
 * runs at once when nobody holds the connection, and never inside someone else's transaction or
 * connection callback, however long those await.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import test from 'ava';
import { sql } from 'kysely';
import { exclusive } from '../../src/platform/db/connection-guard.js';
import { openStore, type Store } from '../../src/platform/db/database.js';
import { writeGate } from '../../src/platform/db/write-gate.js';

const stores: Store[] = [];
const dirs: string[] = [];

function freshStore(): Store {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-connection-guard-'));
  dirs.push(dir);
  const store = openStore(dir);
  store.sqlite.exec('create table notes (id integer primary key, body text not null)');
  stores.push(store);
  return store;
}

test.after.always(async () => {
  for (const store of stores) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
const count = (store: Store) =>
  (store.sqlite.prepare('select count(*) as n from notes').get() as { n: number }).n;

test('work runs at once when nobody holds the connection, before the call returns', async (t) => {
  const store = freshStore();
  await sql`select 1`.execute(store.db); // Kysely has lent and taken back its connection once
  let ran = false;
  const done = exclusive(store.db, store.sqlite, () => {
    ran = true;
    return count(store);
  });
  t.true(ran);
  t.is(await done, 0);
});

test('work never lands inside a Kysely transaction that awaits between its statements', async (t) => {
  const store = freshStore();
  const transaction = store.db.transaction().execute(async (trx) => {
    await sql`insert into notes (body) values ('one')`.execute(trx);
    await pause();
    await sql`insert into notes (body) values ('two')`.execute(trx);
  });
  await pause();
  t.true(store.sqlite.inTransaction, 'the transaction is open and waiting');
  const seen = await exclusive(store.db, store.sqlite, () => ({
    inTransaction: store.sqlite.inTransaction,
    notes: count(store),
  }));
  await transaction;
  t.deepEqual(seen, { inTransaction: false, notes: 2 }, 'it ran after the commit');
});

test('work waits for a connection callback that holds the connection outside a transaction', async (t) => {
  const store = freshStore();
  const order: string[] = [];
  const holder = store.db.connection().execute(async (conn) => {
    order.push('holder starts');
    await pause();
    await sql`insert into notes (body) values ('one')`.execute(conn);
    order.push('holder ends');
  });
  await new Promise((resolve) => setImmediate(resolve));
  const work = exclusive(store.db, store.sqlite, () => order.push('work'));
  await Promise.all([holder, work]);
  t.deepEqual(order, ['holder starts', 'holder ends', 'work']);
});

test('work that throws rejects, and the connection stays usable', async (t) => {
  const store = freshStore();
  await t.throwsAsync(
    exclusive(store.db, store.sqlite, () => store.sqlite.prepare('select * from missing').get()),
    { message: /no such table/ },
  );
  await sql`insert into notes (body) values ('one')`.execute(store.db);
  t.is(await exclusive(store.db, store.sqlite, () => count(store)), 1);
});

/** Another connection, in a thread of its own, holds the write lock for `ms` and commits a row. */
function holdWriteLock(file: string, ms: number): Promise<void> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const SQLite = require('better-sqlite3');
     const other = new SQLite(workerData.file, { timeout: 5000 });
     other.exec('begin immediate');
     other.prepare("insert into notes (body) values ('other')").run();
     parentPort.postMessage('locked');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.ms);
     other.exec('commit');
     other.close();`,
    { eval: true, workerData: { file, ms } },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
}

test('a transaction that reads and then writes waits for another connection holding the write lock', async (t) => {
  // A deferred BEGIN would get SQLITE_BUSY at its first write, at once and without the busy
  // timeout (its snapshot is older than the lock holder's commit): the WAL checkpointer's thread
  // or a CLI command writing beside the server would fail the server's transactions.
  const store = freshStore();
  await holdWriteLock(store.sqlite.name, 300);
  await store.db.transaction().execute(async (trx) => {
    const before = await sql<{ n: number }>`select count(*) as n from notes`.execute(trx);
    await sql`insert into notes (body) values (${`after ${before.rows[0]?.n}`})`.execute(trx);
  });
  const bodies = store.sqlite.prepare('select body from notes order by id').pluck().all();
  t.deepEqual(bodies, ['other', 'after 1']);
});

test.serial(
  'while the WAL checkpointer holds the write gate, transactions and raw work wait without stopping the event loop',
  async (t) => {
    // The checkpointer's thread raises the gate before it takes the write lock to let the WAL start
    // over; a BEGIN meeting that lock would sleep the event loop in SQLite's busy handler. Serial:
    // the test beside it blocks the loop on purpose (a BEGIN waiting for a lock without the gate).
    const store = freshStore();
    await sql`select 1`.execute(store.db);
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
     const SQLite = require('better-sqlite3');
     const other = new SQLite(workerData.file, { timeout: 5000 });
     Atomics.store(workerData.gate, 0, 1);
     other.exec('begin immediate');
     other.prepare("insert into notes (body) values ('other')").run();
     parentPort.postMessage('locked');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
     other.exec('commit');
     other.close();
     Atomics.store(workerData.gate, 0, 0);
     Atomics.notify(workerData.gate, 0);`,
      { eval: true, workerData: { file: store.sqlite.name, gate: writeGate(store.sqlite) } },
    );
    await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    const transaction = store.db.transaction().execute(async (trx) => {
      const before = await sql<{ n: number }>`select count(*) as n from notes`.execute(trx);
      await sql`insert into notes (body) values (${`after ${before.rows[0]?.n}`})`.execute(trx);
    });
    const raw = exclusive(store.db, store.sqlite, () => count(store));
    await transaction;
    const seen = await raw;
    const waited = performance.now() - started;
    clearInterval(timer);
    t.true(waited >= 200, `the transaction waited for the thread (${waited.toFixed(0)} ms)`);
    t.true(
      ticks >= 10,
      `the event loop turned while it waited (${ticks} ticks of 5 ms in ${waited.toFixed(0)} ms)`,
    );
    t.is(seen, 2, 'the raw work ran after both commits');
    const bodies = store.sqlite.prepare('select body from notes order by id').pluck().all();
    t.deepEqual(bodies, ['other', 'after 1']);
  },
);
