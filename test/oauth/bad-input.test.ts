import test from 'ava';
import * as oauth from 'oauth4webapi';
import { query } from '../helpers/sql.js';
import {
  authorizationUrl,
  connect,
  consent,
  type OAuthEnv,
  REDIRECT,
  type Registered,
  register,
  signIn,
  startOAuthEnv,
} from './env.js';

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, string>;
}

async function post(
  env: OAuthEnv,
  path: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${env.ph.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : {} };
}

const count = async (env: OAuthEnv, table: string) =>
  Number(
    (await query<{ n: number }>(env.ph.server.kernel.store, `select count(*) as n from ${table}`))[0]?.n,
  );

/** A fresh code for the client (the dashboard approves), with its verifier. */
async function code(env: OAuthEnv, registered: Registered, scope = 'emails:send') {
  const { url, verifier } = await authorizationUrl(env, registered.client, scope);
  const callback = await consent(env, url);
  return { code: callback.searchParams.get('code') as string, verifier };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

test('registration refuses metadata it may not register with RFC 7591 errors, and registers nothing', async (t) => {
  const env = await startOAuthEnv(t);
  const cases: [string, unknown, string][] = [
    ['http to a public host', { redirect_uris: ['http://app.example.com/cb'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://app.example.com/cb#top'] }, 'invalid_redirect_uri'],
    ['a custom scheme', { redirect_uris: ['com.example.app:/cb'] }, 'invalid_redirect_uri'],
    ['no redirect URI', { redirect_uris: [] }, 'invalid_redirect_uri'],
    [
      'eleven redirect URIs',
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example.com/${i}`) },
      'invalid_redirect_uri',
    ],
    ['redirect_uris missing', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['a relative URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    [
      'client_credentials',
      { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] },
      'invalid_client_metadata',
    ],
    [
      'refresh_token alone',
      { redirect_uris: [REDIRECT], grant_types: ['refresh_token'] },
      'invalid_client_metadata',
    ],
    [
      'the implicit response type',
      { redirect_uris: [REDIRECT], response_types: ['token'] },
      'invalid_client_metadata',
    ],
    [
      'private_key_jwt',
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
    ],
    [
      'an unknown scope',
      { redirect_uris: [REDIRECT], scope: 'emails:send mail:everything' },
      'invalid_client_metadata',
    ],
    ['a name that is not a string', { redirect_uris: [REDIRECT], client_name: 7 }, 'invalid_client_metadata'],
  ];
  for (const [what, body, error] of cases) {
    const res = await env.ph.request('POST', '/oauth/register', { body, key: null });
    t.is(res.status, 400, what);
    t.is(res.body.error, error, what);
    t.is(typeof res.body.error_description, 'string', what);
  }
  const garbled = await env.ph.request('POST', '/oauth/register', {
    rawBody: '{"redirect_uris": [',
    headers: { 'content-type': 'application/json' },
    key: null,
  });
  t.is(garbled.status, 400);
  t.is(garbled.body.error, 'invalid_client_metadata');
  t.is(await count(env, 'oauth_clients'), 0);

  // What may be registered: https, and http to the loopback interface on any port.
  for (const uri of [
    'https://app.example.com/cb?x=1',
    'http://127.0.0.1:8123/cb',
    'http://[::1]/cb',
    'http://localhost:3000/cb',
  ]) {
    const res = await env.ph.request('POST', '/oauth/register', {
      body: {
        redirect_uris: [uri],
        token_endpoint_auth_method: 'none',
        logo_uri: 'https://app.example.com/l.png',
      },
      key: null,
    });
    t.is(res.status, 201, uri);
    t.deepEqual(res.body.redirect_uris, [uri]);
    t.is(res.body.logo_uri, undefined, 'unknown metadata is ignored, not echoed');
    t.deepEqual(res.body.grant_types, ['authorization_code']);
  }
});

test('registration is limited per client address', async (t) => {
  const env = await startOAuthEnv(t, { oauth: { registrations_per_hour_per_ip: 2 } });
  for (let i = 0; i < 2; i++)
    t.is(
      (await env.ph.request('POST', '/oauth/register', { body: { redirect_uris: [REDIRECT] }, key: null }))
        .status,
      201,
    );
  const third = await env.ph.request('POST', '/oauth/register', {
    body: { redirect_uris: [REDIRECT] },
    key: null,
  });
  t.is(third.status, 429);
  t.truthy(third.headers.get('retry-after'));
  t.is(await count(env, 'oauth_clients'), 2);
});

test('consent refuses a bad request: to the person when the client or redirect URI is wrong, else back to the client', async (t) => {
  const env = await startOAuthEnv(t);
  const registered = await register(env, { scope: 'emails:send emails:read' });
  const { url } = await authorizationUrl(env, registered.client, 'emails:send');
  const context = (change: (q: URLSearchParams) => void, session = env.session) => {
    const q = new URLSearchParams(url.searchParams);
    change(q);
    return env.ph.request('GET', `/v1/dashboard/oauth/authorize-context?${q}`, { key: session });
  };

  const good = await context(() => {});
  t.is(good.status, 200);
  t.is(good.body.client.client_name, 'Mail agent');
  t.is(good.body.redirect_uri, REDIRECT);
  t.deepEqual(good.body.scopes, ['emails:send']);
  t.is(good.body.project.id, env.ph.owner.projectId);
  t.is(good.body.user.email, 'owner@example.test');

  // Not sent to any redirect URI: the person sees a 400.
  for (const [what, change] of [
    ['unknown client', (q: URLSearchParams) => q.set('client_id', 'phc_01JAAAAAAAAAAAAAAAAAAAAAAA')],
    ['no client', (q: URLSearchParams) => q.delete('client_id')],
    ['a redirect URI one character off', (q: URLSearchParams) => q.set('redirect_uri', `${REDIRECT}/`)],
    ['another port', (q: URLSearchParams) => q.set('redirect_uri', REDIRECT.replace('53682', '53683'))],
    ['no redirect URI', (q: URLSearchParams) => q.delete('redirect_uri')],
  ] as const) {
    const res = await context(change);
    t.is(res.status, 400, what);
    t.is(res.body.redirect_to, undefined, what);
    t.is(typeof res.body.error, 'string', what);
  }

  // Sent back to the client, with state and iss.
  for (const [what, change, error] of [
    ['a plain challenge', (q: URLSearchParams) => q.set('code_challenge_method', 'plain'), 'invalid_request'],
    ['no challenge method', (q: URLSearchParams) => q.delete('code_challenge_method'), 'invalid_request'],
    ['no challenge', (q: URLSearchParams) => q.delete('code_challenge'), 'invalid_request'],
    ['a malformed challenge', (q: URLSearchParams) => q.set('code_challenge', 'short'), 'invalid_request'],
    [
      'response_type token',
      (q: URLSearchParams) => q.set('response_type', 'token'),
      'unsupported_response_type',
    ],
    ['no response_type', (q: URLSearchParams) => q.delete('response_type'), 'invalid_request'],
    ['an unknown scope', (q: URLSearchParams) => q.set('scope', 'emails:send everything'), 'invalid_scope'],
    [
      'a scope beyond the registration',
      (q: URLSearchParams) => q.set('scope', 'domains:write'),
      'invalid_scope',
    ],
  ] as const) {
    const res = await context(change);
    t.is(res.status, 400, what);
    const back = new URL(res.body.redirect_to);
    t.is(`${back.origin}${back.pathname}`, REDIRECT, what);
    t.is(back.searchParams.get('error'), error, what);
    t.is(back.searchParams.get('state'), url.searchParams.get('state'), what);
    t.is(back.searchParams.get('iss'), env.as.issuer, what);
    t.true(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(back.searchParams.get('error_description') ?? ''), what);
    // The approval is refused the same way, and issues no code.
    const q = new URLSearchParams(url.searchParams);
    change(q);
    const approve = await env.ph.request('POST', '/v1/dashboard/oauth/authorize', {
      body: Object.fromEntries(q),
      key: env.session,
    });
    if (approve.status !== 400 || !approve.body.redirect_to) {
      // A field the approve body requires is missing: a 400 for the person.
      t.is(approve.status, 400, what);
    } else t.is(new URL(approve.body.redirect_to).searchParams.get('error'), error, what);
  }
  t.is(await count(env, 'oauth_codes'), 0);

  // A role that may not connect applications: access_denied, with a 403 for the person.
  const invited = await env.ph.request('POST', '/v1/dashboard/organization/members', {
    body: { email: 'ana@example.test', role: 'analyst' },
    key: env.session,
  });
  t.is(invited.status, 201);
  const analyst = await signIn(env.ph, 'ana@example.test');
  const refused = await context(() => {}, analyst);
  t.is(refused.status, 403);
  t.is(new URL(refused.body.redirect_to).searchParams.get('error'), 'access_denied');

  // The person declines.
  const denied = await env.ph.request('POST', '/v1/dashboard/oauth/deny', {
    body: Object.fromEntries(url.searchParams),
    key: env.session,
  });
  t.is(denied.status, 200);
  t.is(new URL(denied.body.redirect_to).searchParams.get('error'), 'access_denied');
  t.is(await count(env, 'oauth_codes'), 0);
});

test('the token endpoint refuses each bad exchange with the right RFC error and issues nothing', async (t) => {
  const env = await startOAuthEnv(t);
  const pub = await register(env);
  const secretPost = await register(env, { token_endpoint_auth_method: 'client_secret_post' });
  const secretBasic = await register(env, { token_endpoint_auth_method: 'client_secret_basic' });
  const exchange = (registered: Registered, params: Record<string, string>) =>
    post(env, '/oauth/token', {
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
      client_id: registered.client.client_id,
      ...params,
    });

  const expectError = (answer: Answer, status: number, error: string, what: string) => {
    t.is(answer.status, status, what);
    t.is(answer.body.error, error, what);
    t.is(typeof answer.body.error_description, 'string', what);
    t.is(answer.headers.get('cache-control'), 'no-store', what);
    t.is(answer.body.access_token, undefined, what);
  };

  const first = await code(env, pub);
  expectError(
    await exchange(pub, { code: first.code, code_verifier: 'a'.repeat(43) }),
    400,
    'invalid_grant',
    'a wrong verifier',
  );
  expectError(
    await exchange(pub, { code: first.code, code_verifier: 'short' }),
    400,
    'invalid_request',
    'a malformed verifier',
  );
  expectError(await exchange(pub, { code: first.code }), 400, 'invalid_request', 'no verifier');
  expectError(
    await exchange(pub, { code: first.code, code_verifier: first.verifier, redirect_uri: `${REDIRECT}x` }),
    400,
    'invalid_grant',
    'another redirect URI',
  );
  expectError(
    await exchange(secretPost, {
      code: first.code,
      code_verifier: first.verifier,
      client_secret: secretPost.secret as string,
    }),
    400,
    'invalid_grant',
    "another client's code",
  );
  expectError(
    await exchange(pub, { code: 'not-a-code', code_verifier: first.verifier }),
    400,
    'invalid_grant',
    'an unknown code',
  );
  expectError(
    await exchange(pub, { code: first.code, code_verifier: first.verifier, scope: 'full_access' }),
    400,
    'invalid_scope',
    'a wider scope',
  );
  expectError(
    await post(env, '/oauth/token', { client_id: pub.client.client_id, code: first.code }),
    400,
    'invalid_request',
    'no grant_type',
  );
  expectError(
    await post(env, '/oauth/token', {
      grant_type: 'password',
      client_id: pub.client.client_id,
      username: 'a',
      password: 'b',
    }),
    400,
    'unsupported_grant_type',
    'the password grant',
  );
  t.is(await count(env, 'oauth_tokens'), 0);
  t.is(await count(env, 'oauth_grants'), 0);

  // Client authentication.
  expectError(
    await exchange(
      { ...pub, client: { ...pub.client, client_id: 'phc_01JAAAAAAAAAAAAAAAAAAAAAAA' } },
      { code: first.code, code_verifier: first.verifier },
    ),
    401,
    'invalid_client',
    'an unknown client',
  );
  expectError(
    await post(env, '/oauth/token', { grant_type: 'authorization_code', code: first.code }),
    401,
    'invalid_client',
    'no client at all',
  );
  const post2 = await code(env, secretPost);
  expectError(
    await exchange(secretPost, { code: post2.code, code_verifier: post2.verifier }),
    401,
    'invalid_client',
    'a confidential client without its secret',
  );
  expectError(
    await exchange(secretPost, { code: post2.code, code_verifier: post2.verifier, client_secret: 'wrong' }),
    401,
    'invalid_client',
    'a wrong secret',
  );
  expectError(
    await exchange(pub, { code: first.code, code_verifier: first.verifier, client_secret: 'anything' }),
    401,
    'invalid_client',
    'a secret from a public client',
  );
  const basic3 = await code(env, secretBasic);
  const wrongBasic = await post(
    env,
    '/oauth/token',
    {
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
      code: basic3.code,
      code_verifier: basic3.verifier,
    },
    { authorization: basic(secretBasic.client.client_id, 'wrong') },
  );
  expectError(wrongBasic, 401, 'invalid_client', 'a wrong Basic secret');
  t.regex(wrongBasic.headers.get('www-authenticate') ?? '', /^Basic realm=/);
  expectError(
    await exchange(secretBasic, {
      code: basic3.code,
      code_verifier: basic3.verifier,
      client_secret: secretBasic.secret as string,
    }),
    401,
    'invalid_client',
    'a client_secret_basic client sending its secret in the body',
  );
  t.is(await count(env, 'oauth_tokens'), 0);

  // The right exchange works once; the code used again revokes what it issued.
  const ok = await exchange(pub, { code: first.code, code_verifier: first.verifier });
  t.is(ok.status, 200);
  t.is(ok.headers.get('cache-control'), 'no-store');
  t.is(
    (await env.ph.request('GET', '/v1/emails/msg_01JAAAAAAAAAAAAAAAAAAAAAAA', { key: ok.body.access_token }))
      .status,
    404,
  );
  expectError(
    await exchange(pub, { code: first.code, code_verifier: first.verifier }),
    400,
    'invalid_grant',
    'a code used twice',
  );
  t.is(
    (await env.ph.request('GET', '/v1/emails/msg_01JAAAAAAAAAAAAAAAAAAAAAAA', { key: ok.body.access_token }))
      .status,
    401,
  );
  expectError(
    await post(env, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: pub.client.client_id,
      refresh_token: ok.body.refresh_token as string,
    }),
    400,
    'invalid_grant',
    'a refresh token of a grant a reused code revoked',
  );
});

test('an expired code is invalid_grant and issues nothing', async (t) => {
  const env = await startOAuthEnv(t, { oauth: { code_lifetime: '1s' } });
  const pub = await register(env);
  const late = await code(env, pub);
  await new Promise((resolve) => setTimeout(resolve, 1200));
  const res = await post(env, '/oauth/token', {
    grant_type: 'authorization_code',
    redirect_uri: REDIRECT,
    client_id: pub.client.client_id,
    code: late.code,
    code_verifier: late.verifier,
  });
  t.is(res.status, 400);
  t.is(res.body.error, 'invalid_grant');
  t.regex(res.body.error_description ?? '', /expired/);
  t.is(await count(env, 'oauth_tokens'), 0);
  t.is(await count(env, 'oauth_grants'), 0);
});

test('refresh tokens: another client cannot use one, scopes only narrow, and a client without the grant type is refused', async (t) => {
  const env = await startOAuthEnv(t);
  const mine = await register(env);
  const theirs = await register(env);
  const tokens = await connect(env, mine);
  const before = await count(env, 'oauth_tokens');
  const refresh = (client: Registered, extra: Record<string, string> = {}) =>
    post(env, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.client.client_id,
      refresh_token: tokens.refresh_token as string,
      ...extra,
    });
  const stolen = await refresh(theirs);
  t.is(stolen.status, 400);
  t.is(stolen.body.error, 'invalid_grant');
  const wider = await refresh(mine, { scope: 'emails:send domains:write' });
  t.is(wider.status, 400);
  t.is(wider.body.error, 'invalid_scope');
  const missing = await post(env, '/oauth/token', {
    grant_type: 'refresh_token',
    client_id: mine.client.client_id,
  });
  t.is(missing.body.error, 'invalid_request');
  t.is(await count(env, 'oauth_tokens'), before);
  // None of that spent it.
  const fine = await refresh(mine);
  t.is(fine.status, 200);
  t.truthy(fine.body.refresh_token);

  const noRefresh = await register(env, { grant_types: ['authorization_code'] });
  const connected = await connect(env, noRefresh);
  t.is(connected.refresh_token, undefined);
  const refused = await post(env, '/oauth/token', {
    grant_type: 'refresh_token',
    client_id: noRefresh.client.client_id,
    refresh_token: tokens.refresh_token as string,
  });
  t.is(refused.status, 400);
  t.is(refused.body.error, 'unauthorized_client');
});

test('revocation always answers 200 and never ends another client’s token', async (t) => {
  const env = await startOAuthEnv(t);
  const mine = await register(env);
  const theirs = await register(env);
  const tokens = await connect(env, mine);
  const noToken = await post(env, '/oauth/revoke', { client_id: mine.client.client_id });
  t.is(noToken.status, 400);
  t.is(noToken.body.error, 'invalid_request');
  for (const token of ['nonsense', `pho_${'A'.repeat(40)}`, tokens.access_token])
    t.is((await post(env, '/oauth/revoke', { token, client_id: theirs.client.client_id })).status, 200);
  t.is((await env.ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 200);
  t.is(
    (await post(env, '/oauth/revoke', { token: tokens.access_token, token_type_hint: 'access_token' }))
      .status,
    200,
  );
  t.is((await env.ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 401);
  // An access token ends alone: the refresh token still refreshes.
  const refreshed = await oauth.refreshTokenGrantRequest(
    env.as,
    mine.client,
    mine.auth,
    tokens.refresh_token as string,
    {
      [oauth.allowInsecureRequests]: true,
    },
  );
  t.is(refreshed.status, 200);
});
