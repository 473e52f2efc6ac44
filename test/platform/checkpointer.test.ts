/**
 * The background checkpointer on a real database file: committed pages reach the database file
 * without the main connection checkpointing (its own threshold is raised far above what is
 * written), and stopping it restores the connection's threshold so that closing removes the WAL.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { startCheckpointer } from '../../src/platform/db/checkpointer.js';
import { openStore } from '../../src/platform/db/database.js';
import { createLogger } from '../../src/platform/log.js';

test('pages committed on the main connection are checkpointed by the worker thread', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-checkpoint-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = openStore(dir);
  const autocheckpoint = () => Number(store.sqlite.pragma('wal_autocheckpoint', { simple: true }));
  const before = autocheckpoint();
  const checkpointer = startCheckpointer(store.sqlite, { intervalMs: 20, log: createLogger('silent') });
  t.true(autocheckpoint() > before);

  store.sqlite.exec('create table blobs (id integer primary key, body blob not null)');
  const insert = store.sqlite.prepare('insert into blobs (body) values (?)');
  const body = Buffer.alloc(64 * 1024, 7);
  for (let batch = 0; batch < 16; batch++) {
    store.sqlite.transaction(() => {
      for (let i = 0; i < 8; i++) insert.run(body);
    })();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  // 8 MiB committed: only a checkpoint copies it from the WAL into the database file.
  const until = Date.now() + 10_000;
  while (statSync(store.file).size < 8 * 1024 * 1024 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.true(statSync(store.file).size >= 8 * 1024 * 1024, 'the database file received the committed pages');

  await checkpointer.stop();
  t.is(autocheckpoint(), before);
  await store.close();
  t.false(existsSync(`${store.file}-wal`));
});
