import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { openStore, type Store } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { workdir } from '../helpers/cli.js';
import { storeMigratedTo } from '../helpers/migrated-store.js';

const tables = (store: Store) =>
  (
    store.sqlite.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]
  ).map((r) => r.name);
const applied = (store: Store) =>
  (store.sqlite.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map(
    (r) => r.name,
  );

const columns = (store: Store, table: string) =>
  (store.sqlite.prepare('select name from pragma_table_info(?)').all(table) as { name: string }[]).map(
    (r) => r.name,
  );

/** A store in `dir` migrated to `to`, with one organization and project for rows to hang off. */
async function storeAt(t: ExecutionContext, dir: string, to: string): Promise<Store> {
  const { store } = await storeMigratedTo(t, to, dir);
  store.sqlite.exec(`insert into organizations (id, name, created_at) values ('org_1', 'o', 0);
    insert into projects (id, organization_id, name, status, created_at, updated_at)
    values ('prj_1', 'org_1', 'p', 'active', 0, 0)`);
  return store;
}

test('a migration that fails after dropping a table leaves the database as it was, and the next run applies it', async (t) => {
  const w = workdir(t);
  const store = await storeAt(t, w.dir, '0008-message-bodies');
  store.sqlite.exec(`insert into messages (id, project_id, mode, traffic, status, from_header, from_email,
      from_domain, subject, headers, tags, created_at, updated_at)
    values ('msg_1', 'prj_1', 'live', 'transactional', 'queued', 'a@x.test', 'a@x.test', 'x.test', 'Hi', '{}', '{}', 1, 1);
    insert into idempotency_keys (project_id, key, message_id, created_at) values ('prj_1', 'k', 'msg_1', 5)`);

  // 0009 rebuilds idempotency_keys (create, copy, DROP, RENAME); this one dies right after.
  const real = migrations['0009-idempotency-mode'];
  const dying = {
    ...migrations,
    '0009-idempotency-mode': {
      async up(db: Kysely<unknown>) {
        await real?.up(db);
        throw new Error('killed halfway');
      },
    },
  };
  const error = await t.throwsAsync(migrateToLatest(store.db, { migrations: dying }));
  t.regex(
    error.message,
    /migration 0009-idempotency-mode failed \(nothing of it was applied\): .*killed halfway/,
  );
  t.deepEqual(applied(store).at(-1), '0008-message-bodies');
  t.false(tables(store).includes('idempotency_keys_0009'));
  t.deepEqual(columns(store, 'idempotency_keys'), ['project_id', 'key', 'message_id', 'created_at']);
  t.deepEqual(store.sqlite.prepare('select project_id, key, message_id from idempotency_keys').all(), [
    { project_id: 'prj_1', key: 'k', message_id: 'msg_1' },
  ]);

  const steps: string[] = [];
  const remaining = Object.keys(migrations).filter((name) => name > '0009');
  t.deepEqual(remaining.slice(0, 3), [
    '0009-idempotency-mode',
    '0010-webhook-failure-streak',
    '0011-inbound-reply-mode',
  ]);
  t.deepEqual(
    await migrateToLatest(store.db, { onApplied: (name, ms) => steps.push(`${name} ${typeof ms}`) }),
    remaining,
  );
  t.deepEqual(
    steps,
    remaining.map((name) => `${name} number`),
  );
  t.deepEqual(store.sqlite.prepare('select mode, key, message_id from idempotency_keys').all(), [
    { mode: 'live', key: 'k', message_id: 'msg_1' },
  ]);
  // The bookkeeping stays Kysely's: its migrator reads it and finds nothing left to do.
  const kysely = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } });
  t.deepEqual(await kysely.migrateToLatest(), { results: [] });
});

test('posthorn migrate killed with SIGKILL while copying message bodies (0008) loses nothing; the rerun completes', async (t) => {
  const w = workdir(t);
  const dataDir = path.join(w.dir, 'data');
  const count = 2000;
  const body = 'x'.repeat(20_000);
  const seeded = await storeAt(t, dataDir, '0007-inbound');
  const insert = seeded.sqlite.prepare(
    `insert into messages (id, project_id, mode, status, from_header, from_email, from_domain, subject, html, text,
       created_at, updated_at)
     values (?, 'prj_1', 'live', 'delivered', 'a@x.test', 'a@x.test', 'x.test', 'Hi', ?, ?, 0, 0)`,
  );
  seeded.sqlite.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(`msg_${i}`, `<p>${i}</p>${body}`, `${i} ${body}`);
  })();
  await seeded.close();
  const config = path.join(w.dir, 'config.toml');
  writeFileSync(config, `[storage]\ndata_dir = ${JSON.stringify(dataDir)}\n`);

  const child = w.spawn(['migrate', '--config', config]);
  let stdout = '';
  let armed = false;
  const killed = await new Promise<{ signal: NodeJS.Signals | null; stdout: string }>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Well into the copy, whatever the host's speed: the transaction has written 16 MB of the
      // copied bodies to the WAL (its page cache spills there), a fraction of the 80 MB it must
      // write before it can commit. A fixed delay after "Applying" let a quiet host finish 0008
      // first.
      if (!armed && stdout.includes('Applying 0008-message-bodies')) {
        armed = true;
        const wal = path.join(dataDir, 'posthorn.sqlite-wal');
        const poll = setInterval(() => {
          let size = 0;
          try {
            size = statSync(wal).size;
          } catch {}
          if (size < 16 * 1024 * 1024) return;
          clearInterval(poll);
          child.kill('SIGKILL');
        }, 2);
        child.on('exit', () => clearInterval(poll));
      }
    });
    child.on('exit', (_code, signal) => resolve({ signal, stdout }));
  });
  t.is(killed.signal, 'SIGKILL', killed.stdout);
  t.notRegex(killed.stdout, /Applied 0008/, 'the kill landed while 0008 ran');

  const after = openStore(dataDir);
  t.is(applied(after).at(-1), '0007-inbound');
  t.false(tables(after).includes('message_bodies'), 'nothing of 0008 was left behind');
  t.true(columns(after, 'messages').includes('html'));
  await after.close();

  const rerun = w.run(['migrate', '--config', config]);
  t.is(rerun.code, 0, rerun.stderr);
  t.regex(rerun.stdout, /Applied 0008-message-bodies in \d+ ms\./);
  const done = openStore(dataDir);
  t.teardown(() => done.close());
  const rows = done.sqlite.prepare('select message_id, html, text from message_bodies').all() as {
    message_id: string;
    html: string;
    text: string;
  }[];
  t.is(rows.length, count);
  t.true(
    rows.every(
      (r) =>
        r.html === `<p>${r.message_id.slice(4)}</p>${body}` && r.text.startsWith(`${r.message_id.slice(4)} `),
    ),
  );
  t.is(applied(done).at(-1), Object.keys(migrations).at(-1));
});
