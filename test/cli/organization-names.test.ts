import { once } from 'node:events';
import { readdirSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { openStore } from '../../src/platform/db/database.js';
import { workdir } from '../helpers/cli.js';
import { storeMigratedTo } from '../helpers/migrated-store.js';

/** Whether process `pid` has `file` open. */
function holds(pid: number, file: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

test('two admin bootstraps of one organization at the same moment: one creates it, the other is refused and creates nothing', async (t) => {
  const w = workdir(t);
  writeFileSync(path.join(w.dir, 'config.toml'), '[storage]\nbusy_timeout_ms = 60000\n');
  const config = ['--config', 'config.toml'];
  // The master key and the database exist before: the race is about the organization.
  t.is((await w.runAsync(['init', ...config])).code, 0);
  t.is((await w.runAsync(['migrate', ...config])).code, 0);
  // Hold the write lock so that both bootstraps reach their insert while the other has not committed.
  const store = openStore(path.join(w.dir, 'data'));
  t.teardown(() => store.close());
  store.sqlite.exec('begin immediate');
  const runs = ['a@example.test', 'b@example.test'].map((email) => {
    const child = w.spawn(['admin', 'bootstrap', '--email', email, '--org', 'Acme', '--json', ...config]);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
    const exited = once(child, 'close').then(([code]) => ({ code: code as number, stdout, stderr }));
    return { child, exited };
  });
  // Once each has the database open (or has already exited), both get time to reach their insert.
  const settled = runs.map(() => false);
  runs.forEach((run, i) => void run.exited.then(() => (settled[i] = true)));
  const file = realpathSync(store.file);
  while (!runs.every((run, i) => settled[i] || holds(run.child.pid as number, file))) await sleep(50);
  await sleep(2000);
  store.sqlite.exec('commit');
  const results = await Promise.all(runs.map((run) => run.exited));
  const codes = results.map((r) => r.code).sort();
  t.deepEqual(codes, [0, 1], results.map((r) => r.stderr).join('\n'));
  const created = JSON.parse(results.find((r) => r.code === 0)?.stdout ?? '{}');
  const refused = results.find((r) => r.code === 1);
  t.regex(
    refused?.stderr ?? '',
    new RegExp(
      `organization named "Acme" already exists \\(${created.organization_id}\\); nothing was created`,
    ),
  );
  t.is(refused?.stdout, '', 'no key is printed');
  const projects = await w.jsonAsync(['admin', 'projects', 'list', '--json', ...config]);
  t.deepEqual(
    projects.data.map((p: { id: string }) => p.id),
    [created.project_id],
  );
});

test('posthorn migrate renames an organization whose name an older one has, saying so on stderr', async (t) => {
  const w = workdir(t, { config: true });
  const { store } = await storeMigratedTo(t, '0016-webhook-endpoint-mode', path.join(w.dir, 'data'));
  const insert = store.sqlite.prepare('insert into organizations (id, name, created_at) values (?, ?, ?)');
  insert.run('org_1', 'Acme', 10);
  insert.run('org_2', 'ACME', 20);
  await store.close();
  const migrated = await w.runAsync(['migrate']);
  t.is(migrated.code, 0, migrated.stderr);
  t.regex(migrated.stdout, /Applied 0018-organization-name-unique/);
  t.regex(
    migrated.stderr,
    /warning: migration 0018-organization-name-unique: organization org_2 "ACME" was renamed "ACME \(org_2\)": organization org_1 "Acme" has the same name/,
  );
  const again = await w.runAsync([
    'admin',
    'bootstrap',
    '--email',
    'a@example.test',
    '--org',
    'acme (ORG_2)',
  ]);
  t.is(again.code, 1, 'the new name is taken as any other');
  t.regex(again.stderr, /organization named "ACME \(org_2\)" already exists \(org_2\)/);
});
