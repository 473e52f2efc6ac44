import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { bootstrapProjectAsync, workdir } from '../helpers/cli.js';

test('admin keys create refuses a zero or over-ten-year lifetime before issuing anything', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const project = await bootstrapProjectAsync(w);
  for (const [lifetime, reason] of [
    ['0d', /--expires-in 0d: A key lifetime must be a whole number of milliseconds above zero/],
    ['200000000d', /--expires-in 200000000d: A key lifetime may be at most 3650 days/],
    ['3651d', /at most 3650 days/],
  ] as const) {
    const result = await w.runAsync([
      'admin',
      'keys',
      'create',
      '--project',
      project,
      '--expires-in',
      lifetime,
    ]);
    t.is(result.code, 2, lifetime);
    t.regex(result.stderr, reason);
  }
  const listed = await w.jsonAsync(['admin', 'keys', 'list', '--project', project, '--json']);
  t.is(listed.data.length, 1, 'only the bootstrap key exists');
  const longest = await w.jsonAsync([
    'admin',
    'keys',
    'create',
    '--project',
    project,
    '--expires-in',
    '3650d',
    '--json',
  ]);
  t.is(new Date(longest.expires_at).getUTCFullYear() - new Date().getUTCFullYear() >= 9, true);
});

test('revoking a key records the organization in the audit log, as creating it does', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const boot = await w.jsonAsync([
    'admin',
    'bootstrap',
    '--email',
    'a@example.test',
    '--org',
    'Acme',
    '--json',
  ]);
  const key = await w.jsonAsync(['admin', 'keys', 'create', '--project', boot.project_id, '--json']);
  t.is((await w.runAsync(['admin', 'keys', 'revoke', key.id])).code, 0);
  const db = new Database(path.join(w.dir, 'data/posthorn.sqlite'), { readonly: true });
  t.teardown(() => db.close());
  const rows = db
    .prepare('select action, organization_id, project_id from audit_log where target = ? order by action')
    .all(key.id);
  t.deepEqual(rows, [
    { action: 'api_key.create', organization_id: boot.organization_id, project_id: boot.project_id },
    { action: 'api_key.revoke', organization_id: boot.organization_id, project_id: boot.project_id },
  ]);
});
