/**
 * The group commit and the WAL barrier, on a real SQLite file: writes that arrive together
 * share one transaction, a failing write rejects alone while the others commit, relaxed batches run
 * with synchronous=NORMAL and leave the configured level behind them, and the barrier resolves
 * whether or not a WAL file exists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/platform/db/database.js';
import { walBarrier } from '../../src/platform/db/durability.js';
import { createGroupCommit, throttled } from '../../src/platform/db/group-commit.js';

const stores: Store[] = [];
const dirs: string[] = [];

function freshStore(): Store {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-group-commit-'));
  dirs.push(dir);
  const store = openStore(dir);
  store.sqlite.exec('create table notes (id integer primary key, body text not null unique)');
  stores.push(store);
  return store;
}

test.after.always(async () => {
  for (const store of stores) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const synchronousLevel = (sqlite: SQLite.Database) => Number(sqlite.pragma('synchronous', { simple: true }));

test('writes requested together commit in one transaction, and each resolves with its result', async (t) => {
  const store = freshStore();
  let commits = 0;
  const write = createGroupCommit(
    store,
    async (trx, body: string) => {
      await sql`insert into notes (body) values (${body})`.execute(trx);
      return body.length;
    },
    { lingerMs: 20, afterCommit: () => (commits += 1) },
  );
  const results = await Promise.all(['a', 'bb', 'ccc', 'dddd'].map(write));
  t.deepEqual(results, [1, 2, 3, 4]);
  t.is(commits, 1);
  t.is((store.sqlite.prepare('select count(*) as n from notes').get() as { n: number }).n, 4);
});

test('a write that fails rolls back alone; the rest of its batch commits', async (t) => {
  const store = freshStore();
  const write = createGroupCommit(store, async (trx, body: string) => {
    await sql`insert into notes (body) values (${`${body}-first`})`.execute(trx);
    // The duplicate fails after the item already wrote a row: that row must go with it.
    await sql`insert into notes (body) values (${body === 'bad' ? 'ok-first' : `${body}-second`})`.execute(
      trx,
    );
    return body;
  });
  const outcomes = await Promise.allSettled(['ok', 'bad', 'fine'].map(write));
  t.deepEqual(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  const bodies = (store.sqlite.prepare('select body from notes order by id').all() as { body: string }[]).map(
    (r) => r.body,
  );
  t.deepEqual(bodies, ['ok-first', 'ok-second', 'fine-first', 'fine-second']);
  t.false(store.sqlite.inTransaction);
});

test('a relaxed batch runs with synchronous=NORMAL and restores the configured level; the default keeps it', async (t) => {
  const store = freshStore();
  t.is(synchronousLevel(store.sqlite), 2);
  const seen = (durability: 'relaxed' | 'configured') =>
    createGroupCommit(store, async () => synchronousLevel(store.sqlite), { durability })(undefined);
  t.is(await seen('relaxed'), 1);
  t.is(synchronousLevel(store.sqlite), 2);
  t.is(await seen('configured'), 2);
});

test('the WAL barrier resolves after relaxed commits, and without a WAL file or on disk at all', async (t) => {
  const store = freshStore();
  const write = createGroupCommit(
    store,
    async (trx, body: string) => {
      await sql`insert into notes (body) values (${body})`.execute(trx);
    },
    { durability: 'relaxed' },
  );
  const barrier = walBarrier(store.sqlite);
  await Promise.all(Array.from({ length: 20 }, (_, i) => write(`n${i}`).then(barrier)));
  t.is((store.sqlite.prepare('select count(*) as n from notes').get() as { n: number }).n, 20);

  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-no-wal-'));
  dirs.push(dir);
  const rollbackJournal = new SQLite(path.join(dir, 'plain.sqlite'));
  rollbackJournal.exec('create table x (y)');
  await walBarrier(rollbackJournal)();
  rollbackJournal.close();
  const memory = new SQLite(':memory:');
  await walBarrier(memory)();
  memory.close();
});

test('writes past the batch size go into further transactions, each on a later turn of the event loop', async (t) => {
  const store = freshStore();
  const batches: string[][] = [[]];
  let turns = 0;
  const write = createGroupCommit(
    store,
    async (trx, body: string) => {
      await sql`insert into notes (body) values (${body})`.execute(trx);
      batches.at(-1)?.push(`${body}@${turns}`);
    },
    { maxBatch: 3, afterCommit: () => batches.push([]) },
  );
  const counting = setInterval(() => (turns += 1), 0);
  try {
    await Promise.all(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map(write));
  } finally {
    clearInterval(counting);
  }
  const sizes = batches.filter((b) => b.length > 0).map((b) => b.length);
  t.deepEqual(sizes, [3, 3, 1]);
  // Every write of a batch saw the same turn; each batch a later one than the one before.
  const turnOf = (entry: string) => Number(entry.split('@')[1]);
  const batchTurns = batches.filter((b) => b.length > 0).map((b) => new Set(b.map(turnOf)));
  t.true(batchTurns.every((s) => s.size === 1));
  const [first, second, third] = batchTurns.map((s) => [...s][0] as number);
  t.true((first as number) < (second as number) && (second as number) < (third as number));
});

test('a full batch does not wait out the linger', async (t) => {
  const store = freshStore();
  const write = createGroupCommit(
    store,
    async (trx, body: string) => {
      await sql`insert into notes (body) values (${body})`.execute(trx);
    },
    { maxBatch: 2, lingerMs: 30_000 },
  );
  const started = performance.now();
  await Promise.all([write('x'), write('y')]);
  t.true(performance.now() - started < 5_000);
  t.is((store.sqlite.prepare('select count(*) as n from notes').get() as { n: number }).n, 2);
});

test('a throttled notification fires at once, then at most once per interval, and never drops the last call', async (t) => {
  let fired = 0;
  const notify = throttled(() => (fired += 1), 40);
  notify();
  t.is(fired, 1);
  notify();
  notify();
  notify();
  t.is(fired, 1);
  await new Promise((resolve) => setTimeout(resolve, 120));
  t.is(fired, 2);
});
