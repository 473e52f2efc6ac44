/**
 * Changing a credential: a notice mail at each change (ASVS 2.2.3), the other sessions signed out
 * by a password change (3.3.3), proof of the current credential before TOTP is enrolled or removed
 * (3.7.1), and common or easy passwords refused (2.1.7, 2.1.8).
 */
import test from 'ava';
import {
  codeIn,
  post,
  pyotpCode,
  receivedMail,
  receivedMails,
  signInByCode,
  startAccountsEnv,
} from './env.js';

const OWNER = 'owner@example.test';
const PASSWORD = 'correct horse battery';
const NEXT = 'lantern orbit meadow quietly';

const actions = async (env: Awaited<ReturnType<typeof startAccountsEnv>>, token: string) => {
  const log = await env.ph.request('GET', '/v1/dashboard/audit-logs?limit=50', { key: token });
  return (log.body.data as { action: string; details: Record<string, unknown> }[]).filter((r) =>
    r.action.startsWith('account.'),
  );
};

/** Every sign-in is "long ago": the current credential is asked at once. */
const ALWAYS_ASK = { accounts: { reauthentication_window: '0s' } };

test('a password change ends the other sessions, keeps the current one, audits how many ended, and mails a notice without the password', async (t) => {
  const env = await startAccountsEnv(t);
  const first = await signInByCode(env, OWNER, 1);
  const second = await signInByCode(env, OWNER, 2);
  const set = await env.ph.request('PUT', '/v1/dashboard/account/password', {
    key: first.token,
    body: { password: PASSWORD },
    headers: {
      'User-Agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
    },
  });
  t.is(set.status, 204, set.text);
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: second.token })).status, 401);
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: first.token })).status, 200);

  const notice = await receivedMail(env, 3);
  t.deepEqual(notice.to, [OWNER]);
  t.regex(notice.subject, /^A password was set on your .+ account$/);
  t.regex(
    notice.text,
    /A password was set on your .+ account owner@example\.test on \d{4}-\d\d-\d\d \d\d:\d\d UTC\./,
  );
  t.true(notice.text.includes('The change was made from Firefox on Windows (127.0.0.0/24).'), notice.text);
  t.true(notice.text.includes('Your other sessions were signed out.'));
  t.true(notice.text.includes('If this was not you'));
  t.false(notice.text.includes(PASSWORD));
  t.false(notice.html.includes(PASSWORD));

  // A change, in the language the client asks for; nothing else to sign out this time.
  const changed = await env.ph.request('PUT', '/v1/dashboard/account/password', {
    key: first.token,
    body: { password: NEXT, current_password: PASSWORD },
    headers: { 'Accept-Language': 'fr-CA,fr;q=0.9,en;q=0.5' },
  });
  t.is(changed.status, 204, changed.text);
  const french = await receivedMail(env, 4);
  t.regex(french.subject, /^Le mot de passe de votre compte .+ a été modifié$/);
  t.false(french.text.includes('Vos autres sessions ont été fermées.'));
  t.false(french.text.includes(NEXT) || french.text.includes(PASSWORD));

  t.deepEqual(
    (await actions(env, first.token)).map((r) => [r.action, r.details.other_sessions_ended]),
    [
      ['account.password_change', 0],
      ['account.password_set', 1],
    ],
  );
});

test('enrolling TOTP needs the current password: missing is a 400 naming it, wrong a 403; turning it off needs a code; both mail a notice', async (t) => {
  const env = await startAccountsEnv(t, ALWAYS_ASK);
  const { token } = await signInByCode(env, OWNER, 1);
  await env.ph.request('PUT', '/v1/dashboard/account/password', { key: token, body: { password: PASSWORD } });

  const bare = await post(env, '/v1/dashboard/account/totp', undefined, token);
  t.is(bare.status, 400, bare.text);
  t.is(bare.body.details[0].path, 'current_password');
  const wrong = await post(env, '/v1/dashboard/account/totp', { current_password: `${PASSWORD}!` }, token);
  t.is(wrong.status, 403, wrong.text);
  t.regex(wrong.body.error, /current_password is not the current password/);
  const extra = await post(env, '/v1/dashboard/account/totp', { current_password: PASSWORD, x: 1 }, token);
  t.is(extra.status, 400);

  const enrol = await post(env, '/v1/dashboard/account/totp', { current_password: PASSWORD }, token);
  t.is(enrol.status, 201, enrol.text);
  const secret: string = enrol.body.secret;
  const on = await post(env, '/v1/dashboard/account/totp/confirm', { code: pyotpCode(secret) }, token);
  t.is(on.status, 200, on.text);

  const off = await env.ph.request('DELETE', '/v1/dashboard/account/totp', {
    key: token,
    body: { code: '000000' === pyotpCode(secret, 1) ? '111111' : '000000' },
  });
  t.is(off.status, 403, 'a wrong code does not turn it off');
  const offOk = await env.ph.request('DELETE', '/v1/dashboard/account/totp', {
    key: token,
    body: { code: pyotpCode(secret, 1) },
  });
  t.is(offOk.status, 204, offOk.text);

  const mails = await receivedMails(env, 4);
  const subjects = mails.map((m) => m.subject).slice(1);
  t.true(
    subjects.some((s) => /^A password was set on your .+ account$/.test(s)),
    subjects.join(' | '),
  );
  const enabled = mails.find((m) => /^Two-factor authentication is on for your/.test(m.subject));
  const disabled = mails.find((m) => /^Two-factor authentication was turned off on your/.test(m.subject));
  t.truthy(enabled, subjects.join(' | '));
  t.truthy(disabled, subjects.join(' | '));
  for (const mail of [enabled, disabled]) {
    t.false(mail?.text.includes(secret), 'the TOTP secret is never in a notice');
    t.false(mail?.text.includes(PASSWORD));
  }
  t.deepEqual(
    (await actions(env, token)).map((r) => [r.action, r.details.proof]),
    [
      ['account.totp_disable', undefined],
      ['account.reauthentication_failed', 'totp_or_recovery_code'],
      ['account.totp_enable', undefined],
      ['account.reauthentication_failed', 'password'],
      ['account.password_set', undefined],
    ],
    'each wrong proof is audited',
  );
});

test('an account without a password enrols TOTP with a fresh sign-in code, which works once', async (t) => {
  const env = await startAccountsEnv(t, ALWAYS_ASK);
  const { token } = await signInByCode(env, OWNER, 1);
  const bare = await post(env, '/v1/dashboard/account/totp', {}, token);
  t.is(bare.status, 400, bare.text);
  t.is(bare.body.details[0].path, 'email_code');
  await post(env, '/v1/auth/request-code', { email: OWNER });
  const code = codeIn(await receivedMail(env, 2));
  const wrongCode = code === '000000' ? '111111' : '000000';
  t.is((await post(env, '/v1/dashboard/account/totp', { email_code: wrongCode }, token)).status, 403);
  const enrol = await post(env, '/v1/dashboard/account/totp', { email_code: code }, token);
  t.is(enrol.status, 201, enrol.text);
  // The code is spent: it neither starts another enrolment nor signs in.
  t.is((await post(env, '/v1/dashboard/account/totp', { email_code: code }, token)).status, 403);
  t.is((await post(env, '/v1/auth/verify-code', { email: OWNER, code })).status, 401);
});

test('within the reauthentication window of signing in, the sign-in is the proof: TOTP enrolment starts with an empty body; a wrong proof given is still refused', async (t) => {
  const env = await startAccountsEnv(t);
  const { token } = await signInByCode(env, OWNER, 1);
  await env.ph.request('PUT', '/v1/dashboard/account/password', { key: token, body: { password: PASSWORD } });
  const wrong = await post(env, '/v1/dashboard/account/totp', { current_password: `${PASSWORD}!` }, token);
  t.is(wrong.status, 403, 'a proof that is given is checked');
  const enrol = await post(env, '/v1/dashboard/account/totp', undefined, token);
  t.is(enrol.status, 201, enrol.text);
  t.regex(enrol.body.secret, /^[A-Z2-7]+=*$/);
});

test('common and easily guessed passwords are refused with a 400 naming the reason, and nothing is set', async (t) => {
  const env = await startAccountsEnv(t);
  const { token } = await signInByCode(env, OWNER, 1);
  const cases: Array<[string, RegExp]> = [
    ['password1234', /is a commonly used password|is too easy to guess/],
    ['1q2w3e4r5t6y', /is a commonly used password/],
    ['qwertyuiop123', /is too easy to guess/],
    ['aaaaaaaaaaaa', /is too easy to guess/],
    ['owner@example.test', /is too easy to guess/],
  ];
  for (const [password, reason] of cases) {
    const res = await env.ph.request('PUT', '/v1/dashboard/account/password', {
      key: token,
      body: { password },
    });
    t.is(res.status, 400, `${password}: ${res.text}`);
    t.is(res.body.details?.[0]?.path, 'password', password);
    t.regex(res.body.details?.[0]?.message, reason, password);
    t.regex(res.body.error, /^Invalid body: password: /);
  }
  const strong = await env.ph.request('PUT', '/v1/dashboard/account/password', {
    key: token,
    body: { password: PASSWORD },
  });
  t.is(strong.status, 204, strong.text);
  // Nothing was set by the refused ones: only the strong password signs in.
  t.is((await post(env, '/v1/auth/login-password', { email: OWNER, password: 'password1234' })).status, 401);
  t.is((await post(env, '/v1/auth/login-password', { email: OWNER, password: PASSWORD })).status, 200);
});

test('new recovery codes need the current authenticator code, void the earlier ones, and mail a notice', async (t) => {
  const env = await startAccountsEnv(t);
  const { token } = await signInByCode(env, OWNER, 1);
  await env.ph.request('PUT', '/v1/dashboard/account/password', { key: token, body: { password: PASSWORD } });
  const none = await post(env, '/v1/dashboard/account/totp/recovery-codes', { code: '123456' }, token);
  t.is(none.status, 404, 'not before two-factor is on');
  const enrol = await post(env, '/v1/dashboard/account/totp', { current_password: PASSWORD }, token);
  const secret: string = enrol.body.secret;
  const on = await post(env, '/v1/dashboard/account/totp/confirm', { code: pyotpCode(secret) }, token);
  const old: string[] = on.body.recovery_codes;

  const wrong = await post(
    env,
    '/v1/dashboard/account/totp/recovery-codes',
    { code: '000000' === pyotpCode(secret, 1) ? '111111' : '000000' },
    token,
  );
  t.is(wrong.status, 403, wrong.text);
  const made = await post(
    env,
    '/v1/dashboard/account/totp/recovery-codes',
    { code: pyotpCode(secret, 1) },
    token,
  );
  t.is(made.status, 200, made.text);
  const fresh: string[] = made.body.recovery_codes;
  t.is(fresh.length, 10);
  t.false(fresh.some((c) => old.includes(c)));

  const signInWith = (recovery_code: string) =>
    post(env, '/v1/auth/login-password', { email: OWNER, password: PASSWORD, recovery_code });
  t.is((await signInWith(old[0] as string)).status, 401, 'an earlier code no longer works');
  t.is((await signInWith(fresh[0] as string)).status, 200, 'a new one does');

  const mails = await receivedMails(env, 4);
  const notice = mails.find((m) => /^New recovery codes for your .+ account$/.test(m.subject));
  t.truthy(notice, mails.map((m) => m.subject).join(' | '));
  t.regex(notice?.text ?? '', /the earlier ones no longer work/);
  for (const code of [...fresh, ...old])
    t.false(notice?.text.includes(code), 'no recovery code in the notice');
  const records = (await actions(env, token)).map((r) => [r.action, r.details.proof]);
  t.deepEqual(records.slice(0, 2), [
    ['account.recovery_codes_regenerate', undefined],
    ['account.reauthentication_failed', 'totp_code'],
  ]);
});
