/**
 * Access-control failures in the audit log (OWASP ASVS 7.2.2), made by real requests to the real
 * server: a key reaching for another organization's resource, a key outside its scopes, refused
 * keys and failed sign-ins; repeats within a minute are one record with a count, a flood is
 * capped, and no record holds the secret presented. Runs on both engines.
 */
import test from 'ava';
import * as oauth from 'oauth4webapi';
import { MAX_RECORDS_PER_MINUTE } from '../../src/audit/coalesce.js';
import { type Posthorn, startPosthorn } from '../helpers/server.js';
import { connect, insecure, register, signIn, startOAuthEnv } from '../oauth/env.js';

interface AuditRecord {
  actor: { type: string; id: string; auth_method: string | null };
  action: string;
  target: string | null;
  project_id: string | null;
  ip_address: string | null;
  details: Record<string, unknown>;
}

const template = {
  name: 'Welcome',
  subject: 'Welcome, {{name}}',
  text_body: 'Hi {{name}}',
  variables: ['name'],
};

/** The records a session of the organization sees, of actions starting with `action`. */
async function audited(ph: Posthorn, session: string, action: string): Promise<AuditRecord[]> {
  const res = await ph.request('GET', `/v1/dashboard/audit-logs?limit=500&action=${action}`, {
    key: session,
  });
  if (res.status !== 200) throw new Error(`audit-logs: ${res.status} ${res.text}`);
  return res.body.data as AuditRecord[];
}

test("a valid key of another organization reaching for this one's resource is recorded for this organization only", async (t) => {
  const ph = await startPosthorn(t);
  const owner = await signIn(ph);
  const made = await ph.request('POST', '/v1/templates', { body: { ...template, slug: 'welcome' } });
  t.is(made.status, 201, made.text);
  const other = await ph.bootstrap('someone@elsewhere.test');
  const otherKey = await ph.server.services.keys.create(
    { projectId: other.projectId, scopes: ['full_access'], mode: 'live' },
    'test',
  );

  for (let i = 0; i < 3; i++) {
    const res = await ph.request('GET', `/v1/templates/${made.body.id}`, {
      key: otherKey.key,
      headers: { 'User-Agent': 'prober/1.0' },
    });
    t.is(res.status, 404, 'answered as if it did not exist');
  }
  // A plain 404 (no such template anywhere) is no access-control failure.
  t.is(
    (await ph.request('GET', '/v1/templates/tpl_01JD3Q8Z9V6W1R2T3Y4V5X6Y7Z', { key: otherKey.key })).status,
    404,
  );

  const denied = await audited(ph, owner, 'access.denied');
  t.is(denied.length, 1, JSON.stringify(denied));
  const [record] = denied as [AuditRecord];
  t.deepEqual(record.actor, { type: 'key', id: otherKey.view.id, auth_method: 'api_key' });
  t.is(record.target, made.body.id);
  t.is(record.project_id, ph.owner.projectId);
  t.is(record.ip_address, '127.0.0.1');
  t.like(record.details, {
    route: 'GET /v1/templates/{id}',
    reason: 'other_organization',
    status: 404,
    count: 3,
  });

  // The prober's own organization learns nothing: its log would tell the ID exists.
  const theirs = await audited(ph, await signIn(ph, 'someone@elsewhere.test'), 'access.denied');
  t.deepEqual(theirs, []);
});

test('a key acting outside its scopes is recorded with the route and the scope it lacks', async (t) => {
  const ph = await startPosthorn(t);
  const owner = await signIn(ph);
  const made = await ph.request('POST', '/v1/dashboard/api-keys', {
    key: owner,
    body: { name: 'sender', scopes: ['emails:send'] },
  });
  t.is(made.status, 201, made.text);
  for (let i = 0; i < 2; i++)
    t.is((await ph.request('GET', '/v1/templates', { key: made.body.key })).status, 403);

  const [record, ...rest] = await audited(ph, owner, 'access.denied');
  t.deepEqual(rest, []);
  t.deepEqual(record?.actor, { type: 'key', id: made.body.id, auth_method: 'api_key' });
  t.like(record?.details, { route: 'GET /v1/templates', reason: 'forbidden', status: 403, count: 2 });
  t.regex(String(record?.details.message), /templates:read|scope/);
});

test('revoked and unknown API keys are recorded as rejected, with no more of the key than its prefix', async (t) => {
  const ph = await startPosthorn(t);
  const owner = await signIn(ph);
  const made = await ph.request('POST', '/v1/dashboard/api-keys', {
    key: owner,
    body: { name: 'old', scopes: ['full_access'] },
  });
  t.is((await ph.request('DELETE', `/v1/dashboard/api-keys/${made.body.id}`, { key: owner })).status, 204);
  t.is((await ph.request('GET', '/v1/templates', { key: made.body.key })).status, 401);
  const unknown = `ph_live_${'Q'.repeat(32)}`;
  t.is((await ph.request('GET', '/v1/templates', { key: unknown })).status, 401);

  const log = await ph.request('GET', '/v1/dashboard/audit-logs?action=auth.credential_rejected', {
    key: owner,
  });
  const [revoked, ...rest] = log.body.data as AuditRecord[];
  t.deepEqual(rest, [], 'the unknown key belongs to no organization');
  t.deepEqual(revoked?.actor, { type: 'key', id: made.body.id, auth_method: 'api_key' });
  t.like(revoked?.details, { route: 'GET /v1/templates', reason: 'revoked', key_prefix: 'ph_live_' });
  t.false(log.text.includes(made.body.key));

  const stored = await ph.server.kernel.db
    .selectFrom('audit_log')
    .selectAll()
    .where('action', '=', 'auth.credential_rejected')
    .where('actor', '=', 'anonymous')
    .execute();
  t.is(stored.length, 1);
  t.is(stored[0]?.organization_id, null);
  t.like(JSON.parse(stored[0]?.details ?? '{}'), { reason: 'unknown', key_prefix: 'ph_live_' });
  const everything = JSON.stringify(await ph.server.kernel.db.selectFrom('audit_log').selectAll().execute());
  t.false(everything.includes(unknown.slice(8)), 'no record holds the secret part of a key');
  t.false(everything.includes(made.body.key.slice(8)));
});

test('repeated bad sign-ins are one record with a count, holding no password', async (t) => {
  const ph = await startPosthorn(t);
  const owner = await signIn(ph);
  const body = { email: 'owner@example.test', password: 'not the password at all' };
  for (let i = 0; i < 5; i++)
    t.is((await ph.request('POST', '/v1/auth/login-password', { body, key: null })).status, 401);
  const log = await ph.request('GET', '/v1/dashboard/audit-logs?action=auth.login_failed', { key: owner });
  const failed = log.body.data as AuditRecord[];
  t.is(failed.length, 1, log.text);
  t.like(failed[0]?.details, { email: 'owner@example.test', count: 5 });
  t.false(log.text.includes(body.password));
});

test('a flood of refusals is capped per organization and minute, and the rest counted in one record', async (t) => {
  const ph = await startPosthorn(t);
  const owner = await signIn(ph);
  const made = await ph.request('POST', '/v1/dashboard/api-keys', {
    key: owner,
    body: { name: 'sender', scopes: ['emails:send'] },
  });
  const extra = 7;
  for (let i = 0; i < MAX_RECORDS_PER_MINUTE + extra; i++) {
    // Each path a different record: the cap, not coalescing, must bound them.
    const res = await ph.request('GET', `/v1/templates/tpl_${String(i).padStart(26, '0')}`, {
      key: made.body.key,
    });
    t.is(res.status, 403);
  }
  const denied = await audited(ph, owner, 'access.denied');
  t.is(denied.length, MAX_RECORDS_PER_MINUTE);
  const [suppressed, ...more] = await audited(ph, owner, 'audit.records_suppressed');
  t.deepEqual(more, []);
  t.is(suppressed?.details.count, extra);
});

test('a revoked OAuth access token is recorded as rejected, naming its client and the person it acted for', async (t) => {
  const env = await startOAuthEnv(t);
  const registered = await register(env);
  const tokens = await connect(env, registered);
  t.is((await env.ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 200);
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(
      env.as,
      registered.client,
      registered.auth,
      tokens.refresh_token as string,
      insecure,
    ),
  );
  t.is((await env.ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 401);
  t.is((await env.ph.request('GET', '/v1/emails', { key: `pho_${'Z'.repeat(40)}` })).status, 401);

  const log = await env.ph.request('GET', '/v1/dashboard/audit-logs?action=auth.credential_rejected', {
    key: env.session,
  });
  const [revoked, ...rest] = log.body.data as AuditRecord[];
  t.deepEqual(rest, [], 'the unknown token belongs to no organization');
  t.deepEqual(revoked?.actor, { type: 'oauth', id: registered.client.client_id, auth_method: 'oauth' });
  t.like(revoked?.details, {
    route: 'GET /v1/emails',
    reason: 'revoked',
    key_prefix: 'pho_',
    on_behalf_of: env.ph.owner.userId,
  });
  t.false(log.text.includes(tokens.access_token.slice(4)));
  const everything = JSON.stringify(
    await env.ph.server.kernel.db.selectFrom('audit_log').selectAll().execute(),
  );
  t.false(everything.includes('Z'.repeat(40)), 'no record holds the secret part of a token');
});

test("a session selecting another organization's project is recorded for that organization only", async (t) => {
  const ph = await startPosthorn(t);
  const owner = await signIn(ph);
  const other = await ph.bootstrap('someone@elsewhere.test');
  const prober = await signIn(ph, 'someone@elsewhere.test');
  const res = await ph.request('GET', '/v1/auth/session', {
    key: prober,
    headers: { 'X-Posthorn-Project-ID': ph.owner.projectId },
  });
  t.is(res.status, 404);
  const [record, ...rest] = await audited(ph, owner, 'access.denied');
  t.deepEqual(rest, []);
  t.deepEqual(record?.actor, { type: 'session', id: other.userId, auth_method: 'password' });
  t.is(record?.target, ph.owner.projectId);
  t.like(record?.details, {
    route: 'GET /v1/auth/session',
    reason: 'other_organization',
    selected_by: 'X-Posthorn-Project-ID',
  });
  t.deepEqual(await audited(ph, prober, 'access.denied'), []);
});
