/**
 * An organization that requires two-factor authentication of its owners and admins (ASVS 4.3.1):
 * only an owner with an authenticator turns it on; an admin without one is refused every
 * administrative action, keeps what a developer may do, and is let in as soon as they turn one on.
 */
import test from 'ava';
import { latestCodeIn, post, pyotpCode, startAccountsEnv } from './env.js';

const OWNER = 'owner@example.test';
const ADMIN = 'admin@example.test';
const DEV = 'dev@example.test';
const PASSWORD = 'lantern orbit meadow quietly';

test('owners and admins need an authenticator for administrative actions once an owner requires it', async (t) => {
  const env = await startAccountsEnv(t);
  const signIn = async (email: string, n: number) => {
    await post(env, '/v1/auth/request-code', { email });
    const res = await post(env, '/v1/auth/verify-code', { email, code: await latestCodeIn(env, n, email) });
    t.is(res.status, 200, res.text);
    return res.body.token as string;
  };
  const security = (token: string, body?: unknown) =>
    body === undefined
      ? env.ph.request('GET', '/v1/dashboard/organization/security', { key: token })
      : env.ph.request('PUT', '/v1/dashboard/organization/security', { key: token, body });

  const owner = await signIn(OWNER, 1);
  for (const [email, role] of [
    [ADMIN, 'admin'],
    [DEV, 'developer'],
  ]) {
    const added = await post(env, '/v1/dashboard/organization/members', { email, role }, owner);
    t.is(added.status, 201, added.text);
  }
  const before = await security(owner);
  t.is(before.status, 200, before.text);
  t.false(before.body.require_two_factor_for_admins);
  t.is(before.body.required_since, null);
  t.deepEqual(
    before.body.admins_without_two_factor.map((m: { email: string }) => m.email),
    [OWNER, ADMIN],
  );

  // Not before the owner has an authenticator of their own.
  const early = await security(owner, { require_two_factor_for_admins: true });
  t.is(early.status, 409, early.text);
  t.regex(early.body.error, /your own account/);
  await env.ph.request('PUT', '/v1/dashboard/account/password', { key: owner, body: { password: PASSWORD } });
  const enrol = await post(env, '/v1/dashboard/account/totp', { current_password: PASSWORD }, owner);
  await post(env, '/v1/dashboard/account/totp/confirm', { code: pyotpCode(enrol.body.secret) }, owner);
  const on = await security(owner, { require_two_factor_for_admins: true });
  t.is(on.status, 200, on.text);
  t.true(on.body.require_two_factor_for_admins);
  t.false(Number.isNaN(Date.parse(on.body.required_since)));
  t.deepEqual(
    on.body.admins_without_two_factor.map((m: { email: string; role: string }) => [m.email, m.role]),
    [[ADMIN, 'admin']],
  );
  t.is((await security(owner, { require_two_factor_for_admins: 'yes' })).status, 400);

  // The admin without an authenticator: administrative actions are 403s saying what to do.
  const admin = await signIn(ADMIN, 6);
  const invite = await post(
    env,
    '/v1/dashboard/organization/members',
    { email: 'x@example.test', role: 'analyst' },
    admin,
  );
  t.is(invite.status, 403, invite.text);
  t.regex(invite.body.error, /requires two-factor authentication of owners and admins/);
  t.is((await env.ph.request('GET', '/v1/dashboard/audit-logs', { key: admin })).status, 403);
  // What any developer may do stays open; so does reading the setting (without the list).
  t.is((await env.ph.request('GET', '/v1/dashboard/organization/members', { key: admin })).status, 200);
  const key = await post(
    env,
    '/v1/dashboard/api-keys',
    { name: 'ci', scopes: ['emails:send'], mode: 'live' },
    admin,
  );
  t.is(key.status, 201, key.text);
  const seen = await security(admin);
  t.is(seen.status, 200);
  t.true(seen.body.require_two_factor_for_admins);
  t.false('admins_without_two_factor' in seen.body);
  // Only owners change it; a developer is not concerned by it at all.
  t.is((await security(admin, { require_two_factor_for_admins: false })).status, 403);
  const dev = await signIn(DEV, 7);
  t.is((await security(dev, { require_two_factor_for_admins: false })).status, 403);
  t.is((await env.ph.request('GET', '/v1/dashboard/organization/members', { key: dev })).status, 200);

  // The admin turns an authenticator on (no password: a mailed code proves it is them): let in at once.
  await post(env, '/v1/auth/request-code', { email: ADMIN });
  const adminEnrol = await post(
    env,
    '/v1/dashboard/account/totp',
    { email_code: await latestCodeIn(env, 8, ADMIN) },
    admin,
  );
  t.is(adminEnrol.status, 201, adminEnrol.text);
  const confirmed = await post(
    env,
    '/v1/dashboard/account/totp/confirm',
    { code: pyotpCode(adminEnrol.body.secret) },
    admin,
  );
  t.is(confirmed.status, 200, confirmed.text);
  const invited = await post(
    env,
    '/v1/dashboard/organization/members',
    { email: 'x@example.test', role: 'analyst' },
    admin,
  );
  t.is(invited.status, 201, invited.text);

  // Off again; both changes are in the audit log.
  const off = await security(owner, { require_two_factor_for_admins: false });
  t.is(off.status, 200, off.text);
  t.false(off.body.require_two_factor_for_admins);
  const log = await env.ph.request('GET', '/v1/dashboard/audit-logs?action=organization.two_factor', {
    key: owner,
  });
  t.deepEqual(
    (log.body.data as { action: string; details: { required: boolean } }[]).map((r) => [
      r.action,
      r.details.required,
    ]),
    [
      ['organization.two_factor_requirement', false],
      ['organization.two_factor_requirement', true],
    ],
  );
});
