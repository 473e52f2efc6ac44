/** The admin commands answer an operator's slip (a typo, a stray argument) with what to do. */
import test from 'ava';
import { bootstrapProjectAsync, workdir } from '../helpers/cli.js';

test('admin keys create with an unknown scope exits 2, lists the scopes and issues nothing', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const project = await bootstrapProjectAsync(w);
  const result = await w.runAsync([
    'admin',
    'keys',
    'create',
    '--project',
    project,
    '--scopes',
    'emails:send,emails:sned',
  ]);
  t.is(result.code, 2);
  t.regex(result.stderr, /--scopes: unknown scope "emails:sned"\. Scopes: full_access, emails:send, /);
  const listed = await w.jsonAsync(['admin', 'keys', 'list', '--project', project, '--json']);
  t.is(listed.data.length, 1, 'only the bootstrap key');
});

test('admin keys list of an unknown project says it was not found instead of listing nothing', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  await bootstrapProjectAsync(w);
  for (const args of [[], ['--json']]) {
    const result = await w.runAsync(['admin', 'keys', 'list', '--project', 'prj_typo', ...args]);
    t.is(result.code, 1);
    t.regex(result.stderr, /Project prj_typo was not found/);
    t.is(result.stdout, '');
  }
});

test('admin keys list shows the name given with --name, to tell keys apart', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const project = await bootstrapProjectAsync(w);
  const created = await w.jsonAsync([
    'admin',
    'keys',
    'create',
    '--project',
    project,
    '--name',
    'billing-app',
    '--json',
  ]);
  const table = await w.runAsync(['admin', 'keys', 'list', '--project', project]);
  t.regex(table.stdout, /^ID\s+NAME\s+MODE/m);
  t.regex(table.stdout, new RegExp(`^${created.id}\\s+billing-app\\s+live`, 'm'));
});

test('a command given an argument it does not take exits 2 and does nothing', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const project = await bootstrapProjectAsync(w);
  const a = await w.jsonAsync(['admin', 'keys', 'create', '--project', project, '--json']);
  const b = await w.jsonAsync(['admin', 'keys', 'create', '--project', project, '--json']);
  const revoke = await w.runAsync(['admin', 'keys', 'revoke', a.id, b.id]);
  t.is(revoke.code, 2);
  t.regex(revoke.stderr, new RegExp(`Unexpected argument "${b.id}"`));
  const keys = (await w.jsonAsync(['admin', 'keys', 'list', '--project', project, '--json'])).data as {
    revoked_at: string | null;
  }[];
  t.true(
    keys.every((k) => k.revoked_at === null),
    'neither key was revoked',
  );
  const list = await w.runAsync(['admin', 'keys', 'list', project]);
  t.is(list.code, 2);
  t.regex(list.stderr, new RegExp(`Unexpected argument "${project}"`));
  const option = await w.runAsync(['admin', 'keys', 'list', '--projet', project]);
  t.is(option.code, 2);
  t.regex(option.stderr, /^Unknown option '--projet'\.$/m);
  t.false(option.stderr.includes('positional argument'), option.stderr);
});
