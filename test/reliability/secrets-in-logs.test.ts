/**
 * Secrets never reach the log: with every log line written (level trace, the access log on), a
 * sign-in by code, a password set and used (and a wrong one tried), TOTP enrolled, an API key
 * issued, a webhook created with its signing secret, and requests made with a forged key leave
 * none of those secrets in what the server wrote.
 */
import test from 'ava';
import { codeIn, post, receivedMail, startAccountsEnv } from '../accounts/env.js';

const OWNER = 'owner@example.test';
const PASSWORD = 'correct horse battery staple';

test('keys, session tokens, passwords, login codes, TOTP and webhook secrets never appear in the log, even at trace level', async (t) => {
  t.timeout(120_000);
  // The server runs in this process and logs to its standard output: keep a copy of every line.
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  // Kept, not printed: the suite's output stays readable.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = rest.find((x) => typeof x === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as typeof process.stdout.write;
  t.teardown(() => {
    process.stdout.write = write;
  });
  const env = await startAccountsEnv(t, {
    log: { level: 'trace', access_log: true, format: 'json' },
    webhooks: { allow_http: true, allow_private_targets: true },
  });

  const requested = await post(env, '/v1/auth/request-code', { email: OWNER });
  t.is(requested.status, 202, requested.text);
  const code = codeIn(await receivedMail(env, 1));
  const verified = await post(env, '/v1/auth/verify-code', { email: OWNER, code });
  t.is(verified.status, 200, verified.text);
  const session: string = verified.body.token;

  const set = await env.ph.request('PUT', '/v1/dashboard/account/password', {
    key: session,
    body: { password: PASSWORD },
  });
  t.is(set.status, 204, set.text);
  t.is((await post(env, '/v1/auth/login-password', { email: OWNER, password: `${PASSWORD}!` })).status, 401);
  const login = await post(env, '/v1/auth/login-password', { email: OWNER, password: PASSWORD });
  t.is(login.status, 200, login.text);
  const second: string = login.body.token;

  const enrol = await post(env, '/v1/dashboard/account/totp', { current_password: PASSWORD }, second);
  t.is(enrol.status, 201, enrol.text);
  const totpSecret: string = enrol.body.secret;

  const made = await env.ph.request('POST', '/v1/dashboard/api-keys', {
    key: second,
    body: { name: 'CI', scopes: ['full_access'], mode: 'live' },
  });
  t.is(made.status, 201, made.text);
  const apiKey: string = made.body.key;

  const hook = await env.ph.request('POST', '/v1/webhooks', {
    key: apiKey,
    body: { url: 'http://127.0.0.1:9/hook', events: ['email.delivered'] },
  });
  t.is(hook.status, 201, hook.text);
  const webhookSecret: string = hook.body.secret;
  const rotated = await env.ph.request('POST', `/v1/webhooks/${hook.body.id}/rotate-secret`, { key: apiKey });
  t.true(rotated.status < 300, rotated.text);
  const rotatedSecret: string = rotated.body.secret ?? webhookSecret;

  const forged = `${apiKey.slice(0, -6)}AAAAAA`;
  t.is((await env.ph.request('GET', '/v1/domains', { key: forged })).status, 401);
  t.is((await env.ph.request('GET', '/v1/domains', { key: env.ph.owner.apiKey })).status, 200);
  t.is((await env.ph.request('POST', '/v1/auth/logout', { key: session })).status < 300, true);

  const log = lines.join('');
  // Not vacuous: the requests above were logged, with their paths and statuses.
  for (const path of [
    '/v1/auth/verify-code',
    '/v1/auth/login-password',
    '/v1/dashboard/api-keys',
    '/v1/webhooks',
  ])
    t.true(log.includes(path), `the log names ${path}`);
  const secrets: Record<string, string> = {
    'the login code': code,
    'a session token': session,
    'a session token from a password sign-in': second,
    'the password': PASSWORD,
    'a wrong password': `${PASSWORD}!`,
    'the TOTP secret': totpSecret,
    'an issued API key': apiKey,
    'the bootstrap API key': env.ph.owner.apiKey,
    'a forged API key': forged,
    'a webhook signing secret': webhookSecret,
    'a rotated webhook signing secret': rotatedSecret,
  };
  for (const [what, secret] of Object.entries(secrets)) {
    t.true(secret.length >= 6, `${what} was captured`);
    t.false(log.includes(secret), `${what} is in the log`);
  }
  t.log(
    `${lines.length} log writes, ${log.length} bytes, none holding any of ${Object.keys(secrets).length} secrets`,
  );
});
