/**
 * The server's SQLite connection never checkpoints the WAL (that copy and its fsyncs ran on the
 * event loop inside a commit); a thread of its own does, keeping the WAL bounded, and nothing
 * committed is lost across a clean stop or a SIGKILL. SQLite only: PostgreSQL has no WAL of ours.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import SQLite from 'better-sqlite3';
import { startCheckpointer } from '../../src/platform/db/checkpointer.js';
import { databaseFile, openConfiguredStore } from '../../src/platform/db/database.js';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';
import { listening } from '../helpers/config-file.js';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tempDir(t: ExecutionContext, prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const walSize = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

/** Writes transactions of `rows` 1 KB rows (a random-key index, as hits and events have) until `bytes` were written. */
async function writeSteadily(
  sqlite: SQLite.Database,
  bytes: number,
  options: { rows: number; gapMs: number },
  sample: () => void,
): Promise<number> {
  sqlite.exec('create table if not exists load (id integer primary key, k text not null, v blob not null)');
  sqlite.exec('create index if not exists load_k on load (k)');
  const insert = sqlite.prepare('insert into load (k, v) values (?, randomblob(1000))');
  const write = sqlite.transaction((n: number) => {
    for (let i = 0; i < n; i++) insert.run(Math.random().toString(36));
  });
  let written = 0;
  while (written < bytes) {
    write(options.rows);
    written += options.rows * 1000;
    sample();
    await (options.gapMs > 0 ? sleep(options.gapMs) : new Promise((resolve) => setImmediate(resolve)));
  }
  return written;
}

test.serial(
  'the server store never checkpoints in a commit: a thread copies the WAL, which starts over instead of growing',
  async (t) => {
    const dir = tempDir(t, 'posthorn-wal-');
    const store = openConfiguredStore(
      { data_dir: dir, busy_timeout_ms: 5000, synchronous: 'normal' },
      { server: true },
    );
    t.is(store.sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);
    const file = databaseFile(dir);
    let maxWal = 0;
    const written = await writeSteadily(store.sqlite, 48 * MB, { rows: 50, gapMs: 5 }, () => {
      maxWal = Math.max(maxWal, walSize(file));
    });
    // Without the thread the WAL would hold all of it (its automatic checkpoints are off).
    t.true(
      statSync(file).size > 24 * MB,
      `the database file holds the copied pages (${statSync(file).size} B)`,
    );
    // It starts over from 16 MB; the 64 MB bound is never needed by this writer, which pauses.
    t.true(maxWal < 40 * MB, `the WAL peaked at ${maxWal} B for ${written} B written`);
    t.log(`WAL peak ${(maxWal / MB).toFixed(1)} MB for ${(written / MB).toFixed(0)} MB of rows`);
    const rows = (store.sqlite.prepare('select count(*) as n from load').get() as { n: number }).n;
    await store.close();
    t.false(existsSync(`${file}-wal`), 'the last connection to close removes the WAL');
    const reopened = new SQLite(file, { readonly: true });
    t.teardown(() => reopened.close());
    t.is((reopened.prepare('select count(*) as n from load').get() as { n: number }).n, rows);
    t.is(reopened.pragma('integrity_check', { simple: true }), 'ok');
  },
);

test.serial(
  'a writer that never pauses cannot grow the WAL past its bound: the thread truncates it',
  async (t) => {
    const dir = tempDir(t, 'posthorn-wal-bound-');
    const file = path.join(dir, 'bound.sqlite');
    const sqlite = new SQLite(file, { timeout: 5000 });
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    const truncations: number[] = [];
    const checkpointer = startCheckpointer(sqlite, {
      synchronous: 'normal',
      busyTimeoutMs: 5000,
      intervalMs: 20,
      limitBytes: 2 * MB,
      onCheckpoint: (report) => {
        if (report.truncated) truncations.push(report.log);
      },
    });
    await checkpointer.ready;
    let maxWal = 0;
    const written = await writeSteadily(sqlite, 64 * MB, { rows: 50, gapMs: 0 }, () => {
      maxWal = Math.max(maxWal, walSize(file));
    });
    await checkpointer.stop();
    // The bound plus what this writer adds while a tick comes round (it writes at memory speed: tens
    // of MB), never the WAL of everything written (over twice the rows' bytes, with the index's pages).
    t.true(truncations.length > 0, 'the owner truncated the WAL');
    t.true(
      maxWal < written * 0.75,
      `the WAL peaked at ${maxWal} B for ${written} B written (${truncations.length} truncations)`,
    );
    const rows = (sqlite.prepare('select count(*) as n from load').get() as { n: number }).n;
    t.is(rows * 1000, written);
    sqlite.close();
    t.log(`truncated ${truncations.length} times; WAL peak ${(maxWal / MB).toFixed(1)} MB`);
  },
);

/** `posthorn serve` on `dataDir` in a process of its own; its URL once it listens. */
async function serve(t: ExecutionContext, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const config = path.join(dataDir, 'serve.toml');
  writeFileSync(
    config,
    [
      '[server]',
      'listen = "127.0.0.1:0"',
      '[storage]',
      `data_dir = ${JSON.stringify(dataDir)}`,
      'synchronous = "full"',
      '[smtp_in]',
      'enabled = false',
      '[delivery]',
      'enabled = false',
      '[limits]',
      'sends_per_minute_per_key = 100000000',
      'sends_per_hour_per_recipient = 100000000',
      '[log]',
      'level = "info"',
      '',
    ].join('\n'),
  );
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('POSTHORN_')) delete env[key];
  const main = path.resolve(import.meta.dirname, '../../src/main.js');
  const child = spawn(process.execPath, [main, 'serve', '--config', config], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const url = await listening(child).url;
  return { child, url };
}

/** Sends until `stop()` says so, 8 at a time; the IDs of the sends answered 202. */
function sendContinuously(url: string, key: string): { accepted: string[]; stop: () => Promise<void> } {
  const accepted: string[] = [];
  let running = true;
  const html = `<p>${'A line of a long enough message to fill pages of the WAL. '.repeat(300)}</p>`;
  const one = async (n: number) => {
    while (running) {
      const res = await fetch(`${url}/v1/emails`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          from: 'hello@acme.test',
          to: [`reader${n}@example.net`],
          subject: 'Hi',
          html,
        }),
      }).catch(() => undefined);
      if (res === undefined) return; // the server is gone
      const body = (await res.json().catch(() => ({}))) as { id?: string };
      if (res.status === 202 && body.id !== undefined) accepted.push(body.id);
    }
  };
  const workers = Array.from({ length: 8 }, (_, n) => one(n));
  return {
    accepted,
    stop: async () => {
      running = false;
      await Promise.all(workers);
    },
  };
}

test.serial(
  'a real server loses no accepted send across a SIGKILL and a clean stop, with checkpoints on its thread',
  async (t) => {
    const dataDir = tempDir(t, 'posthorn-wal-serve-');
    // A project with a verified sending domain, made in-process and stopped before `serve` runs.
    const setup = await startServer(testConfig(dataDir), createLogger('silent'));
    const { projectId } = await setup.services.projects.bootstrap(
      { email: 'o@example.test', organization: 'O', project: 'P' },
      'test',
    );
    const { key } = await setup.services.keys.create(
      { projectId, scopes: ['full_access'], mode: 'live' },
      'test',
    );
    const now = Date.now();
    await setup.kernel.db
      .insertInto('domains')
      .values({
        id: 'dom_wal',
        project_id: projectId,
        name: 'acme.test',
        region: 'eu',
        status: 'verified',
        checks: '{}',
        created_at: now,
        updated_at: now,
        verified_at: now,
      })
      .execute();
    await setup.kernel.db
      .updateTable('projects')
      .set({ status: 'active' })
      .where('id', '=', projectId)
      .execute();
    await setup.stop();
    const file = databaseFile(dataDir);
    const stored = (ids: readonly string[]) => {
      const db = new SQLite(file, { readonly: true });
      try {
        const check = db.prepare('select 1 from messages where id = ?');
        return {
          missing: ids.filter((id) => check.get(id) === undefined),
          integrity: db.pragma('integrity_check', { simple: true }),
        };
      } finally {
        db.close();
      }
    };

    // 1. Sends until the WAL has been copied and started over several times, then a SIGKILL mid-stream.
    const first = await serve(t, dataDir);
    const killed = sendContinuously(first.url, key);
    const deadline = Date.now() + 20_000;
    while (killed.accepted.length < 400 && Date.now() < deadline) await sleep(50);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    await killed.stop();
    t.true(killed.accepted.length >= 100, `${killed.accepted.length} sends accepted before the kill`);
    t.true(statSync(file).size > 2 * MB, 'the checkpointer copied pages into the database file');

    // 2. The next start recovers the WAL; more sends, then a clean stop.
    const second = await serve(t, dataDir);
    const stopped = sendContinuously(second.url, key);
    while (stopped.accepted.length < 200 && Date.now() < deadline + 20_000) await sleep(50);
    const exited = new Promise<number | null>((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    await stopped.stop();
    t.is(await exited, 0);
    t.false(existsSync(`${file}-wal`), 'a clean stop leaves no WAL behind');

    const after = stored([...killed.accepted, ...stopped.accepted]);
    t.deepEqual(after.missing, [], 'every send answered 202 is stored');
    t.is(after.integrity, 'ok');
  },
);
