import test from 'ava';
import type { DeliveryEnv } from '../delivery/env.js';
import { post, receivedMail, signInByCode, startAccountsEnv } from './env.js';

const OWNER = 'owner@example.test';
const PASSWORD = 'a long enough password';

/** Signs `email` in with a password an operator set (no mail needed). */
async function passwordSession(env: DeliveryEnv, email: string): Promise<string> {
  const users = env.ph.server.services.accounts.users;
  const user = await users.findByEmail(email);
  if (!user) throw new Error(`no user ${email}`);
  await users.setPassword(user, PASSWORD);
  const res = await post(env, '/v1/auth/login-password', { email, password: PASSWORD });
  if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${res.text}`);
  return res.body.token as string;
}

async function addMember(env: DeliveryEnv, token: string, email: string, role: string) {
  return env.ph.request('POST', '/v1/dashboard/organization/members', { key: token, body: { email, role } });
}

test('an owner adds a person without an account: the account is made, an invitation mail arrives, and they sign in by code', async (t) => {
  const env = await startAccountsEnv(t);
  const owner = await passwordSession(env, OWNER);
  const added = await env.ph.request('POST', '/v1/dashboard/organization/members', {
    key: owner,
    body: { email: 'Dev@Example.test', role: 'developer' },
    headers: { 'Accept-Language': 'fr-CA,fr;q=0.9,en;q=0.5' },
  });
  t.is(added.status, 201, added.text);
  t.is(added.body.email, 'dev@example.test');
  t.is(added.body.role, 'developer');
  t.regex(added.body.id, /^mem_/);

  const invitation = await receivedMail(env, 1);
  t.deepEqual(invitation.to, ['dev@example.test']);
  t.regex(invitation.subject, /Vous avez été ajouté à Test Org/);
  t.true(invitation.text.includes(env.ph.config.server.public_url));
  t.regex(invitation.text, /developer/);

  const dev = await signInByCode(env, 'dev@example.test', 2);
  t.is(dev.session.organization_id, env.ph.owner.organizationId);
  const list = await env.ph.request('GET', '/v1/dashboard/organization/members', { key: dev.token });
  t.is(list.status, 200);
  t.deepEqual(
    list.body.data.map((m: { email: string; role: string }) => [m.email, m.role]),
    [
      [OWNER, 'owner'],
      ['dev@example.test', 'developer'],
    ],
  );
  t.is((await addMember(env, owner, 'dev@example.test', 'analyst')).status, 409, 'already a member');
});

test('roles follow the permission matrix: who may manage members, keys and read the audit log', async (t) => {
  const env = await startAccountsEnv(t);
  const owner = await passwordSession(env, OWNER);
  for (const [email, role] of [
    ['admin@example.test', 'admin'],
    ['dev@example.test', 'developer'],
    ['analyst@example.test', 'analyst'],
    ['billing@example.test', 'billing'],
  ] as const) {
    t.is((await addMember(env, owner, email, role)).status, 201);
  }
  const tokens = {
    admin: await passwordSession(env, 'admin@example.test'),
    developer: await passwordSession(env, 'dev@example.test'),
    analyst: await passwordSession(env, 'analyst@example.test'),
    billing: await passwordSession(env, 'billing@example.test'),
  };
  const expect: Record<string, { members: number; keys: number; audit: number }> = {
    admin: { members: 201, keys: 200, audit: 200 },
    developer: { members: 403, keys: 200, audit: 403 },
    analyst: { members: 403, keys: 403, audit: 403 },
    billing: { members: 403, keys: 403, audit: 403 },
  };
  let n = 0;
  for (const [role, token] of Object.entries(tokens)) {
    const want = expect[role] as { members: number; keys: number; audit: number };
    const invite = await addMember(env, token, `new${n++}@example.test`, 'analyst');
    t.is(invite.status, want.members, `${role} adds a member`);
    if (invite.status === 403) t.regex(invite.body.error, /owner, admin/);
    t.is(
      (await env.ph.request('GET', '/v1/dashboard/api-keys', { key: token })).status,
      want.keys,
      `${role} lists keys`,
    );
    t.is(
      (await env.ph.request('GET', '/v1/dashboard/audit-logs', { key: token })).status,
      want.audit,
      `${role} reads the audit log`,
    );
    t.is(
      (await env.ph.request('GET', '/v1/dashboard/organization/members', { key: token })).status,
      200,
      `${role} sees members`,
    );
  }
  const members = (await env.ph.request('GET', '/v1/dashboard/organization/members', { key: owner })).body
    .data as {
    id: string;
    email: string;
  }[];
  const idOf = (email: string) => members.find((m) => m.email === email)?.id ?? '';
  const adminPromotes = await env.ph.request(
    'PUT',
    `/v1/dashboard/organization/members/${idOf('dev@example.test')}`,
    {
      key: tokens.admin,
      body: { role: 'owner' },
    },
  );
  t.is(adminPromotes.status, 403, 'only an owner grants the owner role');
  const adminDemotesOwner = await env.ph.request('PUT', `/v1/dashboard/organization/members/${idOf(OWNER)}`, {
    key: tokens.admin,
    body: { role: 'analyst' },
  });
  t.is(adminDemotesOwner.status, 403);
  t.is(
    (
      await env.ph.request('PUT', `/v1/dashboard/organization/members/${idOf('dev@example.test')}`, {
        key: tokens.admin,
        body: { role: 'analyst' },
      })
    ).status,
    204,
  );
});

test('the organization keeps an owner, and a removed member is signed out at once', async (t) => {
  const env = await startAccountsEnv(t);
  const owner = await passwordSession(env, OWNER);
  await addMember(env, owner, 'second@example.test', 'admin');
  const members = (await env.ph.request('GET', '/v1/dashboard/organization/members', { key: owner })).body
    .data as {
    id: string;
    email: string;
  }[];
  const ownerId = members.find((m) => m.email === OWNER)?.id;
  const secondId = members.find((m) => m.email === 'second@example.test')?.id;
  const demote = await env.ph.request('PUT', `/v1/dashboard/organization/members/${ownerId}`, {
    key: owner,
    body: { role: 'admin' },
  });
  t.is(demote.status, 409);
  t.regex(demote.body.error, /at least one owner/);
  t.is(
    (await env.ph.request('DELETE', `/v1/dashboard/organization/members/${ownerId}`, { key: owner })).status,
    409,
  );

  const second = await passwordSession(env, 'second@example.test');
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: second })).status, 200);
  t.is(
    (await env.ph.request('DELETE', `/v1/dashboard/organization/members/${secondId}`, { key: owner })).status,
    204,
  );
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: second })).status, 401, 'signed out at once');
  t.is(
    (await env.ph.request('DELETE', `/v1/dashboard/organization/members/${secondId}`, { key: owner })).status,
    404,
  );
  const other = await env.ph.bootstrap('else@elsewhere.test');
  const foreign = (await env.ph.server.services.accounts.memberStore.listByUser(other.userId))[0]?.id;
  t.is(
    (await env.ph.request('DELETE', `/v1/dashboard/organization/members/${foreign}`, { key: owner })).status,
    404,
  );
});

test('member bodies are validated: an unknown role and a malformed address are 400s naming the field', async (t) => {
  const env = await startAccountsEnv(t);
  const owner = await passwordSession(env, OWNER);
  const badRole = await addMember(env, owner, 'x@example.test', 'superuser');
  t.is(badRole.status, 400);
  t.is(badRole.body.details[0].path, 'role');
  const badEmail = await addMember(env, owner, 'x@', 'admin');
  t.is(badEmail.status, 400);
  t.is(badEmail.body.details[0].path, 'email');
  const put = await env.ph.request('PUT', '/v1/dashboard/organization/members/mem_x', {
    key: owner,
    body: { role: 'root' },
  });
  t.is(put.status, 400);
  t.is(put.body.details[0].path, 'role');
  t.is(
    (await env.ph.request('GET', '/v1/dashboard/organization/members', { key: owner })).body.data.length,
    1,
    'nothing half-written',
  );
});

test('the dashboard issues a key shown once that works on the API, lists it without the secret, and revokes it', async (t) => {
  const env = await startAccountsEnv(t);
  const owner = await passwordSession(env, OWNER);
  const made = await env.ph.request('POST', '/v1/dashboard/api-keys', {
    key: owner,
    body: {
      name: 'CI',
      scopes: ['emails:read'],
      mode: 'live',
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    },
  });
  t.is(made.status, 201, made.text);
  t.regex(made.body.key, /^ph_live_/);
  t.is(made.body.project_id, env.ph.owner.projectId);
  t.is((await env.ph.request('GET', '/v1/emails', { key: made.body.key })).status, 200);
  t.is((await env.ph.request('GET', '/v1/domains', { key: made.body.key })).status, 403, 'scoped');
  const listed = await env.ph.request('GET', '/v1/dashboard/api-keys', { key: owner });
  t.true(listed.body.data.some((k: { id: string }) => k.id === made.body.id));
  t.false(listed.text.includes(made.body.key));
  const other = await env.ph.bootstrap('else@elsewhere.test');
  const foreignKey = (await env.ph.server.services.keys.list(other.projectId))[0]?.id;
  t.is((await env.ph.request('DELETE', `/v1/dashboard/api-keys/${foreignKey}`, { key: owner })).status, 404);
  t.is(
    (await env.ph.request('DELETE', `/v1/dashboard/api-keys/${made.body.id}`, { key: owner })).status,
    204,
  );
  t.is((await env.ph.request('GET', '/v1/emails', { key: made.body.key })).status, 401);
  for (const [body, field] of [
    [{ scopes: ['emails:fly'] }, 'scopes[0]'],
    [{ scopes: [] }, 'scopes'],
    [{ scopes: ['emails:read'], mode: 'prod' }, 'mode'],
    [{ scopes: ['emails:read'], expires_at: 'tomorrow' }, 'expires_at'],
    [{ scopes: ['emails:read'], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
  ] as const) {
    const res = await env.ph.request('POST', '/v1/dashboard/api-keys', { key: owner, body });
    t.is(res.status, 400, JSON.stringify(body));
    t.is(res.body.details[0].path, field);
  }
});

test('the audit log records sessions, keys and failed sign-ins with how they authenticated, newest first, never a secret', async (t) => {
  const env = await startAccountsEnv(t);
  const owner = await passwordSession(env, OWNER);
  const key = await env.ph.request('POST', '/v1/dashboard/api-keys', {
    key: owner,
    body: { scopes: ['full_access'] },
    headers: { 'User-Agent': 'audit-test/1.0' },
  });
  await env.ph.request('POST', '/v1/suppressions', {
    key: key.body.key,
    body: { email: 'gone@example.net', reason: 'manual_block' },
  });
  await post(env, '/v1/auth/login-password', { email: OWNER, password: 'not the password' });
  const log = await env.ph.request('GET', '/v1/dashboard/audit-logs?limit=3', { key: owner });
  t.is(log.status, 200, log.text);
  const [failed, suppression, created] = log.body.data;
  t.is(failed.action, 'auth.login_failed');
  t.is(failed.ip_address, '127.0.0.1');
  t.is(suppression.action, 'POST /v1/suppressions');
  t.deepEqual(suppression.actor, { type: 'key', id: key.body.id, auth_method: 'api_key' });
  t.is(created.action, 'api_key.create');
  t.deepEqual(created.actor, { type: 'session', id: env.ph.owner.userId, auth_method: 'password' });
  t.is(created.user_agent, 'audit-test/1.0');
  t.is(created.target, key.body.id);
  t.false(log.text.includes(key.body.key), 'the key never appears');
  const all = await env.ph.request('GET', '/v1/dashboard/audit-logs', { key: owner });
  t.true(all.body.data.some((r: { action: string }) => r.action === 'auth.login'));
  for (const limit of ['0', '501', 'ten']) {
    const res = await env.ph.request('GET', `/v1/dashboard/audit-logs?limit=${limit}`, { key: owner });
    t.is(res.status, 400);
    t.is(res.body.details[0].path, 'limit');
  }
});
