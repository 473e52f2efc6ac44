/**
 * The delivery engine's relaxed commits (durability.ts) on a real SQLite file: the work runs with
 * synchronous=NORMAL, and the connection's configured level is back once it is over, whether the
 * work returned or threw, every time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import type SQLite from 'better-sqlite3';
import { openStore, type Store } from '../../src/platform/db/database.js';
import { withRelaxedSync, withRelaxedSyncAsync } from '../../src/platform/db/durability.js';

const stores: Store[] = [];
const dirs: string[] = [];

function freshStore(synchronous: 'full' | 'normal' = 'full'): Store {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-relaxed-sync-'));
  dirs.push(dir);
  const store = openStore(dir, { synchronous });
  stores.push(store);
  return store;
}

test.after.always(async () => {
  for (const store of stores) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const level = (sqlite: SQLite.Database) => Number(sqlite.pragma('synchronous', { simple: true }));

test('relaxed work runs with synchronous=NORMAL and leaves FULL behind it, each time and after a throw', async (t) => {
  const { sqlite } = freshStore();
  for (let i = 0; i < 3; i++) {
    t.is(
      withRelaxedSync(sqlite, () => level(sqlite)),
      1,
    );
    t.is(level(sqlite), 2);
    t.is(await withRelaxedSyncAsync(sqlite, async () => level(sqlite)), 1);
    t.is(level(sqlite), 2);
  }
  t.throws(() =>
    withRelaxedSync(sqlite, () => {
      throw new Error('refused');
    }),
  );
  t.is(level(sqlite), 2);
  await t.throwsAsync(withRelaxedSyncAsync(sqlite, async () => Promise.reject(new Error('refused'))));
  t.is(level(sqlite), 2);
});

test('a connection configured with synchronous=NORMAL stays at NORMAL', async (t) => {
  const { sqlite } = freshStore('normal');
  t.is(
    withRelaxedSync(sqlite, () => level(sqlite)),
    1,
  );
  t.is(await withRelaxedSyncAsync(sqlite, async () => level(sqlite)), 1);
  t.is(level(sqlite), 1);
});
