import test from 'ava';
import { workdir } from '../helpers/cli.js';

test('admin bootstrap and keys create trim the names they are given, as the HTTP API does', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const out = await w.jsonAsync([
    'admin',
    'bootstrap',
    '--email',
    ' ada@example.test ',
    '--org',
    '  Acme  ',
    '--project',
    '  Web  ',
    '--json',
  ]);
  const projects = await w.jsonAsync(['admin', 'projects', 'list', '--json']);
  t.like(projects.data[0], { id: out.project_id, name: 'Web', organization_name: 'Acme' });
  const key = await w.jsonAsync([
    'admin',
    'keys',
    'create',
    '--project',
    out.project_id,
    '--name',
    '  ci  ',
    '--json',
  ]);
  t.is(key.name, 'ci');
});

test('admin bootstrap and keys create refuse a blank name or one over 80 characters, creating nothing', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const bootstrap = (...more: string[]) =>
    w.runAsync(['admin', 'bootstrap', '--email', 'a@example.test', '--org', 'Acme', ...more]);
  const blank = await bootstrap('--project', '   ');
  t.is(blank.code, 2);
  t.regex(blank.stderr, /--project must name the project/);
  const long = await w.runAsync(['admin', 'bootstrap', '--email', 'a@example.test', '--org', 'x'.repeat(81)]);
  t.is(long.code, 2);
  t.regex(long.stderr, /--org must be at most 80 characters \(it has 81\)/);
  t.deepEqual((await w.jsonAsync(['admin', 'projects', 'list', '--json'])).data, [], 'nothing was created');
  // 80 characters are taken, as the API takes an 80-character template name.
  const fits = await bootstrap('--project', 'p'.repeat(80), '--json');
  t.is(fits.code, 0, fits.stderr);
  const project = JSON.parse(fits.stdout).project_id as string;
  for (const [name, message] of [
    ['', /--name must name the key/],
    ['k'.repeat(81), /--name must be at most 80 characters/],
  ] as const) {
    const refused = await w.runAsync(['admin', 'keys', 'create', '--project', project, '--name', name]);
    t.is(refused.code, 2, name);
    t.regex(refused.stderr, message);
  }
  t.is((await w.jsonAsync(['admin', 'keys', 'list', '--project', project, '--json'])).data.length, 1);
});
