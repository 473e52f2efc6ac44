import test from 'ava';
import {
  codeIn,
  latestCodeIn,
  post,
  pyotpCode,
  receivedMail,
  signInByCode,
  startAccountsEnv,
} from './env.js';

const OWNER = 'owner@example.test';
const PASSWORD = 'correct horse battery';

test('a password set from the dashboard signs in; the current one is needed to change it; wrong passwords are 401', async (t) => {
  const env = await startAccountsEnv(t);
  const { token } = await signInByCode(env, OWNER, 1);
  const set = await env.ph.request('PUT', '/v1/dashboard/account/password', {
    key: token,
    body: { password: PASSWORD },
  });
  t.is(set.status, 204, set.text);
  const again = await env.ph.request('PUT', '/v1/dashboard/account/password', {
    key: token,
    body: { password: 'another long password' },
  });
  t.is(again.status, 400);
  t.deepEqual(again.body.details, [
    { path: 'current_password', message: 'is required to change a password' },
  ]);

  const login = await post(env, '/v1/auth/login-password', { email: OWNER, password: PASSWORD });
  t.is(login.status, 200, login.text);
  t.is(login.body.session.auth_method, 'password');
  t.is((await post(env, '/v1/auth/login-password', { email: OWNER, password: `${PASSWORD}!` })).status, 401);
  t.is(
    (await post(env, '/v1/auth/login-password', { email: 'nobody@example.test', password: PASSWORD })).status,
    401,
  );
});

test('TOTP: enrolment confirmed by a pyotp code, then both logins need a fresh code; a used code and a missing code are 401; a recovery code works once', async (t) => {
  const env = await startAccountsEnv(t);
  const { token } = await signInByCode(env, OWNER, 1);
  await env.ph.request('PUT', '/v1/dashboard/account/password', { key: token, body: { password: PASSWORD } });

  const enrol = await post(env, '/v1/dashboard/account/totp', { current_password: PASSWORD }, token);
  t.is(enrol.status, 201, enrol.text);
  t.regex(enrol.body.secret, /^[A-Z2-7]+$/);
  t.true(enrol.body.otpauth_uri.startsWith('otpauth://totp/'));
  t.true(enrol.body.otpauth_uri.includes(`secret=${enrol.body.secret}`));
  const secret: string = enrol.body.secret;

  // Pending until confirmed: a login without a code still works.
  t.is((await post(env, '/v1/auth/login-password', { email: OWNER, password: PASSWORD })).status, 200);
  t.is(
    (
      await post(
        env,
        '/v1/dashboard/account/totp/confirm',
        { code: '000000' === pyotpCode(secret) ? '111111' : '000000' },
        token,
      )
    ).status,
    403,
  );
  const confirmed = await post(env, '/v1/dashboard/account/totp/confirm', { code: pyotpCode(secret) }, token);
  t.is(confirmed.status, 200, confirmed.text);
  const recovery: string[] = confirmed.body.recovery_codes;
  t.is(recovery.length, 10);
  t.is(new Set(recovery).size, 10);

  t.is(
    (await post(env, '/v1/auth/login-password', { email: OWNER, password: PASSWORD })).status,
    401,
    'missing TOTP',
  );
  t.is(
    (
      await post(env, '/v1/auth/login-password', {
        email: OWNER,
        password: PASSWORD,
        totp_code: '123456' === pyotpCode(secret, 1) ? '654321' : '123456',
      })
    ).status,
    401,
    'wrong TOTP',
  );
  // The step after the one that confirmed enrolment (±1 step is accepted).
  const next = pyotpCode(secret, 1);
  const withCode = await post(env, '/v1/auth/login-password', {
    email: OWNER,
    password: PASSWORD,
    totp_code: next,
  });
  t.is(withCode.status, 200, withCode.text);
  t.is(
    (await post(env, '/v1/auth/login-password', { email: OWNER, password: PASSWORD, totp_code: next }))
      .status,
    401,
    'a used code is not accepted again',
  );

  const byRecovery = await post(env, '/v1/auth/login-password', {
    email: OWNER,
    password: PASSWORD,
    recovery_code: recovery[0],
  });
  t.is(byRecovery.status, 200);
  t.is(
    (
      await post(env, '/v1/auth/login-password', {
        email: OWNER,
        password: PASSWORD,
        recovery_code: recovery[0],
      })
    ).status,
    401,
  );

  // Login by code needs it too (mails 2 and 3 were the notices of the password and of TOTP).
  await post(env, '/v1/auth/request-code', { email: OWNER });
  const code = await latestCodeIn(env, 4);
  t.is((await post(env, '/v1/auth/verify-code', { email: OWNER, code })).status, 401, 'code without TOTP');
  const verified = await post(env, '/v1/auth/verify-code', {
    email: OWNER,
    code,
    recovery_code: recovery[1],
  });
  t.is(verified.status, 200, verified.text);

  const off = await env.ph.request('DELETE', '/v1/dashboard/account/totp', {
    key: token,
    body: { code: recovery[2] },
  });
  t.is(off.status, 204, off.text);
  t.is((await post(env, '/v1/auth/login-password', { email: OWNER, password: PASSWORD })).status, 200);
  const secretRow = env.ph.server.kernel.store.sqlite
    .prepare('select totp_secret_sealed, totp_pending_sealed from users where email = ?')
    .get(OWNER) as { totp_secret_sealed: string | null };
  t.is(secretRow.totp_secret_sealed, null);
});

test('the TOTP secret is stored sealed, never in clear', async (t) => {
  const env = await startAccountsEnv(t);
  const { token } = await signInByCode(env, OWNER, 1);
  // No password on this account: a fresh sign-in code proves it is still the owner.
  await post(env, '/v1/auth/request-code', { email: OWNER });
  const enrol = await post(
    env,
    '/v1/dashboard/account/totp',
    { email_code: codeIn(await receivedMail(env, 2)) },
    token,
  );
  t.is(enrol.status, 201, enrol.text);
  await post(env, '/v1/dashboard/account/totp/confirm', { code: pyotpCode(enrol.body.secret) }, token);
  const row = env.ph.server.kernel.store.sqlite
    .prepare('select totp_secret_sealed from users where email = ?')
    .get(OWNER) as { totp_secret_sealed: string };
  t.true(row.totp_secret_sealed.startsWith('v1.'));
  t.false(row.totp_secret_sealed.includes(enrol.body.secret));
  const codes = env.ph.server.kernel.store.sqlite.prepare('select code_hash from recovery_codes').all() as {
    code_hash: string;
  }[];
  t.is(codes.length, 10);
  t.true(codes.every((c) => /^[0-9a-f]{64}$/.test(c.code_hash)));
});
