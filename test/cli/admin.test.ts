import test from 'ava';
import { bootstrapProject, workdir } from '../helpers/cli.js';

test('admin bootstrap creates an organization, a sandbox project, an owner and a full-access key', (t) => {
  const w = workdir(t, { config: true });
  const out = w.json([
    'admin',
    'bootstrap',
    '--email',
    'Ada@Example.test',
    '--org',
    'Acme',
    '--project',
    'Web',
    '--json',
  ]);
  t.regex(out.organization_id, /^org_/);
  t.regex(out.project_id, /^prj_/);
  t.regex(out.user_id, /^usr_/);
  t.regex(out.api_key, /^ph_live_[0-9A-Za-z]{32}$/);
  const projects = w.json(['admin', 'projects', 'list', '--json']);
  t.is(projects.data.length, 1);
  t.deepEqual(projects.data[0], {
    id: out.project_id,
    organization_id: out.organization_id,
    name: 'Web',
    status: 'sandbox',
    organization_name: 'Acme',
  });
  const human = w.run(['admin', 'bootstrap', '--email', 'bob@example.test', '--org', 'Other']);
  t.is(human.code, 0);
  t.regex(human.stdout, /shown once/);
  // The key's ID, which revoking it takes, is printed beside the key.
  const keyId = /Full-access API key (key_\w+) \(shown once, store it now\): ph_live_/.exec(
    human.stdout,
  )?.[1];
  t.truthy(keyId, human.stdout);
  const other = /project (prj_\w+)/.exec(human.stdout)?.[1] ?? '';
  const keys = w.json(['admin', 'keys', 'list', '--project', other, '--json']);
  t.deepEqual(
    keys.data.map((k: { id: string }) => k.id),
    [keyId],
  );
});

test('admin bootstrap run again for an organization of the same name refuses and creates nothing', (t) => {
  const w = workdir(t, { config: true });
  const first = w.json(['admin', 'bootstrap', '--email', 'a@example.test', '--org', 'Acme', '--json']);
  for (const org of ['Acme', ' acme ']) {
    const again = w.run(['admin', 'bootstrap', '--email', 'a@example.test', '--org', org, '--json']);
    t.is(again.code, 1, org);
    t.is(again.stdout, '', 'no key is printed');
    t.regex(
      again.stderr,
      new RegExp(`organization named "Acme" already exists \\(${first.organization_id}\\)`),
    );
    t.regex(again.stderr, /nothing was created/);
  }
  const projects = w.json(['admin', 'projects', 'list', '--json']);
  t.deepEqual(
    projects.data.map((p: { id: string }) => p.id),
    [first.project_id],
  );
  const keys = w.json(['admin', 'keys', 'list', '--project', first.project_id, '--json']);
  t.is(keys.data.length, 1, 'no second full-access key');
  const blank = w.run(['admin', 'bootstrap', '--email', 'a@example.test', '--org', '  ']);
  t.is(blank.code, 2);
  t.regex(blank.stderr, /--org must name the organization/);
});

test('admin keys create, list and revoke manage a project key', (t) => {
  const w = workdir(t, { config: true });
  const project = bootstrapProject(w);
  const created = w.json([
    'admin',
    'keys',
    'create',
    '--project',
    project,
    '--scopes',
    'emails:send,emails:read',
    '--test',
    '--expires-in',
    '30d',
    '--json',
  ]);
  t.regex(created.api_key, /^ph_test_/);
  t.deepEqual(created.scopes, ['emails:send', 'emails:read']);
  const days = (Date.parse(created.expires_at) - Date.now()) / 86_400_000;
  t.true(days > 29.9 && days <= 30);
  const listed = w.json(['admin', 'keys', 'list', '--project', project, '--json']);
  t.is(listed.data.length, 2);
  t.false(JSON.stringify(listed).includes(created.api_key), 'the list never shows keys');
  const table = w.run(['admin', 'keys', 'list', '--project', project]);
  t.regex(table.stdout, new RegExp(created.id));
  const revoked = w.json(['admin', 'keys', 'revoke', created.id, '--json']);
  t.truthy(revoked.revoked_at);
  const after = w.json(['admin', 'keys', 'list', '--project', project, '--json']);
  t.truthy(after.data.find((k: { id: string }) => k.id === created.id).revoked_at);
});

test('admin keys create refuses an unknown scope, a bad lifetime and an unknown project', (t) => {
  const w = workdir(t, { config: true });
  const project = bootstrapProject(w);
  const scope = w.run(['admin', 'keys', 'create', '--project', project, '--scopes', 'emails:fly']);
  t.is(scope.code, 2, 'a mistyped scope is a usage error, like a bad --expires-in');
  t.regex(scope.stderr, /unknown scope "emails:fly"/);
  const lifetime = w.run(['admin', 'keys', 'create', '--project', project, '--expires-in', 'soon']);
  t.is(lifetime.code, 2);
  t.regex(lifetime.stderr, /--expires-in/);
  const missing = w.run(['admin', 'keys', 'create', '--project', 'prj_nope']);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /prj_nope was not found/);
  const noProject = w.run(['admin', 'keys', 'create']);
  t.is(noProject.code, 2);
  t.regex(noProject.stderr, /--project is required/);
});

test('admin projects activate and suspend change the status', (t) => {
  const w = workdir(t, { config: true });
  const project = bootstrapProject(w);
  const activated = w.json(['admin', 'projects', 'activate', project, '--json']);
  t.like(activated, { id: project, status: 'active' });
  t.deepEqual(Object.keys(activated).sort(), ['id', 'name', 'organization_id', 'status']);
  t.is(w.json(['admin', 'projects', 'suspend', project, '--json']).status, 'suspended');
  const listed = w.json(['admin', 'projects', 'list', '--json']);
  t.is(listed.data[0].status, 'suspended');
  const unknown = w.run(['admin', 'projects', 'activate', 'prj_missing']);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /not found/);
});

test('every command and group answers --help', (t) => {
  const w = workdir(t, { config: true });
  const commands = [
    [],
    ['serve'],
    ['init'],
    ['migrate'],
    ['config'],
    ['config', 'check'],
    ['config', 'print'],
    ['config', 'example'],
    ['admin'],
    ['admin', 'bootstrap'],
    ['admin', 'keys'],
    ['admin', 'keys', 'create'],
    ['admin', 'keys', 'list'],
    ['admin', 'keys', 'revoke'],
    ['admin', 'projects'],
    ['admin', 'projects', 'list'],
    ['admin', 'projects', 'activate'],
    ['admin', 'projects', 'suspend'],
    ['queue'],
    ['queue', 'stats'],
  ];
  for (const command of commands) {
    const result = w.run([...command, '--help']);
    t.is(result.code, 0, `posthorn ${command.join(' ')} --help`);
    t.regex(result.stdout, /Usage: posthorn/, command.join(' '));
  }
  const unknown = w.run(['frobnicate']);
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /Unknown command "frobnicate"/);
});
