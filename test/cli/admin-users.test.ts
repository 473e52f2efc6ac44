import { spawnSync } from 'node:child_process';
import path from 'node:path';
import test from 'ava';
import Database from 'better-sqlite3';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { BIN, workdir } from '../helpers/cli.js';
import { testConfig } from '../helpers/server.js';

function withStdin(dir: string, args: string[], input: string) {
  const env: NodeJS.ProcessEnv = { ...process.env, POSTHORN_LOG_LEVEL: 'warn' };
  for (const key of Object.keys(env))
    if (key.startsWith('POSTHORN_') && key !== 'POSTHORN_LOG_LEVEL') delete env[key];
  const result = spawnSync(BIN, args, { cwd: dir, env, input, encoding: 'utf8', timeout: 30_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('admin users set-password reads the password from standard input and it signs in over HTTP; list shows it; reset-totp is audited', async (t) => {
  const w = workdir(t, { config: true });
  const boot = w.json(['admin', 'bootstrap', '--email', 'ann@example.test', '--org', 'Acme', '--json']);
  const short = withStdin(
    w.dir,
    ['admin', 'users', 'set-password', '--email', 'ann@example.test'],
    'short\n',
  );
  t.is(short.code, 2);
  t.regex(short.stderr, /12 to 128 characters/);
  const common = withStdin(
    w.dir,
    ['admin', 'users', 'set-password', '--email', 'ann@example.test'],
    'password1234\n',
  );
  t.is(common.code, 2);
  t.regex(common.stderr, /is a commonly used password|is too easy to guess/);
  const unknown = withStdin(
    w.dir,
    ['admin', 'users', 'set-password', '--email', 'bob@example.test'],
    'a long enough password\n',
  );
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /bob@example.test/);
  const set = withStdin(
    w.dir,
    ['admin', 'users', 'set-password', '--email', 'ann@example.test'],
    'a long enough password\n',
  );
  t.is(set.code, 0, set.stderr);
  t.regex(set.stdout, /Password set for ann@example.test/);

  const listed = w.json(['admin', 'users', 'list', '--org', 'Acme', '--json']);
  t.deepEqual(
    listed.data.map((u: Record<string, unknown>) => [u.email, u.role, u.password, u.totp]),
    [['ann@example.test', 'owner', true, false]],
  );
  t.is(w.json(['admin', 'users', 'list', '--org', boot.organization_id, '--json']).data.length, 1);
  t.is(w.run(['admin', 'users', 'list', '--org', 'Nobody']).code, 1);
  t.is(w.run(['admin', 'users', 'reset-totp', '--email', 'ann@example.test']).code, 0);

  const db = new Database(path.join(w.dir, 'data/posthorn.sqlite'), { readonly: true });
  const audited = db
    .prepare(
      "select action, actor, actor_kind, auth_method, user_agent, organization_id from audit_log where action like 'user.%' order by id",
    )
    .all() as {
    action: string;
    actor_kind: string;
    auth_method: string;
    user_agent: string;
    organization_id: string;
  }[];
  db.close();
  t.deepEqual(
    audited.map((a) => a.action),
    ['user.set_password', 'user.reset_totp'],
  );
  t.true(
    audited.every(
      (a) => a.actor_kind === 'cli' && a.auth_method === 'cli' && a.organization_id === boot.organization_id,
    ),
  );
  t.regex(audited[0]?.user_agent ?? '', /^posthorn-cli \(os user /);

  const server = await startServer(testConfig(path.join(w.dir, 'data')), createLogger('silent'));
  t.teardown(() => server.stop());
  const login = await fetch(`${server.url}/v1/auth/login-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ann@example.test', password: 'a long enough password' }),
  });
  t.is(login.status, 200);
});
