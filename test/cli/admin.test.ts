import test from 'ava';
import type { Command, Group } from '../../src/cli/command.js';
import { dispatch } from '../../src/cli/command.js';
import { root } from '../../src/cli/root.js';
import { bootstrapProjectAsync, type CliResult, workdir } from '../helpers/cli.js';

test('admin bootstrap creates an organization, a sandbox project, an owner and a full-access key', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const out = await w.jsonAsync([
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
  const projects = await w.jsonAsync(['admin', 'projects', 'list', '--json']);
  t.is(projects.data.length, 1);
  t.deepEqual(projects.data[0], {
    id: out.project_id,
    organization_id: out.organization_id,
    name: 'Web',
    status: 'sandbox',
    organization_name: 'Acme',
  });
  const human = await w.runAsync(['admin', 'bootstrap', '--email', 'bob@example.test', '--org', 'Other']);
  t.is(human.code, 0);
  t.regex(human.stdout, /shown once/);
  // The key's ID, which revoking it takes, is printed beside the key.
  const keyId = /Full-access API key (key_\w+) \(shown once, store it now\): ph_live_/.exec(
    human.stdout,
  )?.[1];
  t.truthy(keyId, human.stdout);
  const other = /project (prj_\w+)/.exec(human.stdout)?.[1] ?? '';
  const keys = await w.jsonAsync(['admin', 'keys', 'list', '--project', other, '--json']);
  t.deepEqual(
    keys.data.map((k: { id: string }) => k.id),
    [keyId],
  );
});

test('admin bootstrap run again for an organization of the same name refuses and creates nothing', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const first = await w.jsonAsync([
    'admin',
    'bootstrap',
    '--email',
    'a@example.test',
    '--org',
    'Acme',
    '--json',
  ]);
  for (const org of ['Acme', ' acme ']) {
    const again = await w.runAsync([
      'admin',
      'bootstrap',
      '--email',
      'a@example.test',
      '--org',
      org,
      '--json',
    ]);
    t.is(again.code, 1, org);
    t.is(again.stdout, '', 'no key is printed');
    t.regex(
      again.stderr,
      new RegExp(`organization named "Acme" already exists \\(${first.organization_id}\\)`),
    );
    t.regex(again.stderr, /nothing was created/);
  }
  const projects = await w.jsonAsync(['admin', 'projects', 'list', '--json']);
  t.deepEqual(
    projects.data.map((p: { id: string }) => p.id),
    [first.project_id],
  );
  const keys = await w.jsonAsync(['admin', 'keys', 'list', '--project', first.project_id, '--json']);
  t.is(keys.data.length, 1, 'no second full-access key');
  const blank = await w.runAsync(['admin', 'bootstrap', '--email', 'a@example.test', '--org', '  ']);
  t.is(blank.code, 2);
  t.regex(blank.stderr, /--org must name the organization/);
});

test('admin keys create, list and revoke manage a project key', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const project = await bootstrapProjectAsync(w);
  const created = await w.jsonAsync([
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
  const listed = await w.jsonAsync(['admin', 'keys', 'list', '--project', project, '--json']);
  t.is(listed.data.length, 2);
  t.false(JSON.stringify(listed).includes(created.api_key), 'the list never shows keys');
  const table = await w.runAsync(['admin', 'keys', 'list', '--project', project]);
  t.regex(table.stdout, new RegExp(created.id));
  const revoked = await w.jsonAsync(['admin', 'keys', 'revoke', created.id, '--json']);
  t.truthy(revoked.revoked_at);
  const after = await w.jsonAsync(['admin', 'keys', 'list', '--project', project, '--json']);
  t.truthy(after.data.find((k: { id: string }) => k.id === created.id).revoked_at);
});

test('admin keys create refuses an unknown scope, a bad lifetime and an unknown project', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const project = await bootstrapProjectAsync(w);
  const scope = await w.runAsync(['admin', 'keys', 'create', '--project', project, '--scopes', 'emails:fly']);
  t.is(scope.code, 2, 'a mistyped scope is a usage error, like a bad --expires-in');
  t.regex(scope.stderr, /unknown scope "emails:fly"/);
  const lifetime = await w.runAsync([
    'admin',
    'keys',
    'create',
    '--project',
    project,
    '--expires-in',
    'soon',
  ]);
  t.is(lifetime.code, 2);
  t.regex(lifetime.stderr, /--expires-in/);
  const missing = await w.runAsync(['admin', 'keys', 'create', '--project', 'prj_nope']);
  t.is(missing.code, 1);
  t.regex(missing.stderr, /prj_nope was not found/);
  const noProject = await w.runAsync(['admin', 'keys', 'create']);
  t.is(noProject.code, 2);
  t.regex(noProject.stderr, /--project is required/);
});

test('admin projects activate and suspend change the status', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const project = await bootstrapProjectAsync(w);
  const activated = await w.jsonAsync(['admin', 'projects', 'activate', project, '--json']);
  t.like(activated, { id: project, status: 'active' });
  t.deepEqual(Object.keys(activated).sort(), ['id', 'name', 'organization_id', 'status']);
  t.is((await w.jsonAsync(['admin', 'projects', 'suspend', project, '--json'])).status, 'suspended');
  const listed = await w.jsonAsync(['admin', 'projects', 'list', '--json']);
  t.is(listed.data[0].status, 'suspended');
  const unknown = await w.runAsync(['admin', 'projects', 'activate', 'prj_missing']);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /not found/);
});

/** Every command and group of a tree, as the words that name it (the root is `[]`). */
function commandsOf(
  node: Command | Group,
  trail: readonly string[] = [],
): { words: string[]; node: Command | Group }[] {
  const here = [{ words: [...trail], node }];
  if (node.kind === 'command') return here;
  return [...here, ...node.children.flatMap((child) => commandsOf(child, [...trail, child.name]))];
}

/** Whether a help text lists `name` in its table of commands (`  name   summary`). */
function lists(help: string, name: string): boolean {
  return new RegExp(`^  ${name} +\\S`, 'm').test(help);
}

test('every command and group answers --help, and admin --help lists every command group', async (t) => {
  t.timeout(120_000);
  const w = workdir(t, { config: true });
  const commands = [
    [],
    ['serve'],
    ['init'],
    ['migrate'],
    ['doctor'],
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
    ['admin', 'users'],
    ['admin', 'users', 'set-password'],
    ['admin', 'users', 'reset-totp'],
    ['admin', 'users', 'list'],
    ['admin', 'incidents'],
    ['admin', 'incidents', 'open'],
    ['admin', 'incidents', 'update'],
    ['admin', 'incidents', 'resolve'],
    ['admin', 'incidents', 'list'],
    ['admin', 'maintenance'],
    ['admin', 'maintenance', 'schedule'],
    ['admin', 'maintenance', 'update'],
    ['admin', 'maintenance', 'complete'],
    ['admin', 'maintenance', 'cancel'],
    ['admin', 'maintenance', 'list'],
    ['admin', 'ips'],
    ['admin', 'ips', 'requests'],
    ['admin', 'ips', 'approve'],
    ['admin', 'ips', 'decline'],
    ['queue'],
    ['queue', 'stats'],
    ['inbound'],
    ['inbound', 'retry'],
  ];
  // Each command above is in the tree; the tree may hold more, and every one of them is checked.
  const tree = commandsOf(root);
  const names = new Set(tree.map((c) => c.words.join(' ')));
  for (const command of commands)
    t.true(names.has(command.join(' ')), `posthorn ${command.join(' ')} exists`);

  // Every command's --help, through the tree the binary dispatches: exit 0, its usage line, and
  // for a group each of its commands.
  for (const { words, node } of tree) {
    const out: string[] = [];
    const code = await dispatch(root, [...words, '--help'], {
      out: (line) => out.push(line),
      err: (line) => t.fail(`posthorn ${words.join(' ')} --help wrote to stderr: ${line}`),
    });
    const name = `posthorn ${words.join(' ')} --help`;
    t.is(code, 0, name);
    const stdout = out.join('\n');
    t.regex(stdout, new RegExp(`Usage: posthorn${words.map((word) => ` ${word}`).join('')}\\b`), name);
    if (node.kind === 'group')
      for (const child of node.children) t.true(lists(stdout, child.name), `${name} lists ${child.name}`);
  }

  // The binary itself, three starts at once (on a busy host a start takes seconds): the top-level
  // and admin help list their commands, and an unknown command is a usage error.
  const [top, admin, unknown] = (await Promise.all([
    w.runAsync(['--help']),
    w.runAsync(['admin', '--help']),
    w.runAsync(['frobnicate']),
  ])) as [CliResult, CliResult, CliResult];
  t.is(top.code, 0);
  t.regex(top.stdout, /Usage: posthorn <command>/);
  for (const command of ['serve', 'init', 'migrate', 'config', 'doctor', 'admin', 'queue', 'inbound'])
    t.true(lists(top.stdout, command), `posthorn --help lists ${command}`);
  t.is(admin.code, 0);
  t.regex(admin.stdout, /Usage: posthorn admin <command>/);
  for (const group of ['bootstrap', 'keys', 'projects', 'users', 'incidents', 'maintenance', 'ips'])
    t.true(lists(admin.stdout, group), `posthorn admin --help lists ${group}`);

  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /Unknown command "frobnicate"/);
});
