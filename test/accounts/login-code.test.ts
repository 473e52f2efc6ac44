import test from 'ava';
import { codeIn, post, receivedMail, SYSTEM_FROM, startAccountsEnv } from './env.js';

const OWNER = 'owner@example.test';

test('a known user gets a six-digit code by mail from the system sender and exchanges it for a session; logout ends it', async (t) => {
  const env = await startAccountsEnv(t);
  const requested = await post(env, '/v1/auth/request-code', { email: 'Owner@Example.test' });
  t.is(requested.status, 202);
  t.deepEqual(requested.body, { ok: true, expires_in: 600 });

  const mail = await receivedMail(env, 1);
  t.deepEqual(mail.to, [OWNER]);
  t.is(mail.from, '"Posthorn" <no-reply@ops.posthorn-mail.test>');
  t.not(SYSTEM_FROM, '');
  const code = codeIn(mail);
  t.regex(code, /^\d{6}$/);
  t.true(mail.subject.includes(code));
  t.regex(mail.text, /expires in 10 minutes, at \d\d:\d\d UTC/);

  const verified = await post(env, '/v1/auth/verify-code', { email: OWNER, code });
  t.is(verified.status, 200, verified.text);
  const { token, session } = verified.body;
  t.regex(token, /^phs_[0-9A-Za-z]{40}$/);
  t.is(session.email, OWNER);
  t.is(session.user_id, env.ph.owner.userId);
  t.is(session.organization_id, env.ph.owner.organizationId);
  t.is(session.project_id, env.ph.owner.projectId);
  t.is(session.project_status, 'sandbox');
  t.is(session.auth_method, 'email_code');
  t.is(session.ip_address, '127.0.0.1');
  for (const field of ['created_at', 'last_seen_at', 'expires_at'])
    t.false(Number.isNaN(Date.parse(session[field])));

  const current = await env.ph.request('GET', '/v1/auth/session', { key: token });
  t.is(current.status, 200);
  t.is(current.body.id, session.id);
  t.is(current.body.auth_method, 'email_code');

  t.is((await post(env, '/v1/auth/logout', undefined, token)).status, 204);
  const after = await env.ph.request('GET', '/v1/auth/session', { key: token });
  t.is(after.status, 401);
  t.regex(after.body.error, /ended/);
});

test('an unknown address gets the same answer and no mail', async (t) => {
  const env = await startAccountsEnv(t);
  const unknown = await post(env, '/v1/auth/request-code', { email: 'nobody@example.test' });
  t.is(unknown.status, 202);
  t.deepEqual(unknown.body, { ok: true, expires_in: 600 });
  await post(env, '/v1/auth/request-code', { email: OWNER });
  await receivedMail(env, 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [[OWNER]],
  );
  const verify = await post(env, '/v1/auth/verify-code', { email: 'nobody@example.test', code: '123456' });
  t.is(verify.status, 401);
});

test('a code is accepted once, a new request replaces the previous code, and five wrong tries void it', async (t) => {
  const env = await startAccountsEnv(t);
  await post(env, '/v1/auth/request-code', { email: OWNER });
  const first = codeIn(await receivedMail(env, 1));
  await post(env, '/v1/auth/request-code', { email: OWNER });
  const second = codeIn(await receivedMail(env, 2));
  if (first !== second)
    t.is((await post(env, '/v1/auth/verify-code', { email: OWNER, code: first })).status, 401);
  t.is((await post(env, '/v1/auth/verify-code', { email: OWNER, code: second })).status, 200);
  t.is((await post(env, '/v1/auth/verify-code', { email: OWNER, code: second })).status, 401, 'used once');

  await post(env, '/v1/auth/request-code', { email: OWNER });
  const third = codeIn(await receivedMail(env, 3));
  const wrong = third === '000000' ? '111111' : '000000';
  for (let i = 0; i < 5; i++)
    t.is((await post(env, '/v1/auth/verify-code', { email: OWNER, code: wrong })).status, 401);
  const late = await post(env, '/v1/auth/verify-code', { email: OWNER, code: third });
  t.is(late.status, 401, 'the right code after five wrong tries is void');
});

const WORDS: Record<string, RegExp> = {
  en: /sign-in code/,
  ru: /код для входа/,
  es: /código de inicio de sesión/,
  fr: /code de connexion/,
  pt: /código de acesso/,
  zh: /登录验证码/,
  hi: /साइन-इन कोड/,
  bn: /সাইন-ইন কোড/,
  id: /Kode masuk/,
  et: /sisselogimiskood/,
  ar: /رمز تسجيل الدخول/,
};

test('the mail is written in each of the eleven locales and says when the code expires', async (t) => {
  const env = await startAccountsEnv(t, {
    accounts: { login_codes_per_hour: 20 },
    limits: { login_attempts_per_hour: 50 },
  });
  const before = Date.now();
  for (const locale of Object.keys(WORDS))
    t.is((await post(env, '/v1/auth/request-code', { email: OWNER, locale })).status, 202);
  const after = Date.now();
  const mails = await Promise.all(Object.keys(WORDS).map((_, i) => receivedMail(env, i + 1)));
  const times = new Set([before, after].map((at) => new Date(at + 600_000).toISOString().slice(11, 16)));
  for (const [locale, words] of Object.entries(WORDS)) {
    // Mails may arrive in any order: each locale's is the one whose subject speaks it.
    const mail = mails.find((m) => words.test(m.subject));
    if (!mail) {
      t.fail(`no mail in ${locale}: ${mails.map((m) => m.subject).join(' | ')}`);
      continue;
    }
    t.true(
      [...times].some((time) => mail.text.includes(time)),
      `${locale} names the expiry time: ${mail.text}`,
    );
    t.true(mail.text.includes(codeIn(mail)));
    t.regex(mail.html, new RegExp(`lang="${locale}"`));
    if (locale === 'ar') t.regex(mail.html, /dir="rtl"/);
  }
});
