import test from 'ava';
import * as oauth from 'oauth4webapi';
import { query } from '../helpers/sql.js';
import { connect, insecure, register, signIn, startOAuthEnv } from './env.js';

test('an independent client discovers the server, registers, connects with PKCE, refreshes with rotation and revokes', async (t) => {
  const env = await startOAuthEnv(t);
  const { as, ph } = env;
  t.is(as.issuer, ph.config.server.public_url);
  t.deepEqual(as.code_challenge_methods_supported, ['S256']);
  t.true(as.scopes_supported?.includes('emails:send'));
  t.is(as.authorization_response_iss_parameter_supported, true);
  t.is(as.token_endpoint, `${as.issuer}/oauth/token`);

  const registered = await register(env);
  t.regex(registered.client.client_id, /^phc_/);
  t.is(registered.secret, undefined);

  const tokens = await connect(env, registered);
  t.regex(tokens.access_token, /^pho_[0-9A-Za-z]{40}$/);
  t.regex(tokens.refresh_token ?? '', /^phr_[0-9A-Za-z]{40}$/);
  t.is(tokens.token_type, 'bearer');
  t.is(tokens.expires_in, 3600);
  t.is(tokens.scope, 'emails:send emails:read');
  t.is(tokens.callback.searchParams.get('iss'), as.issuer);

  // The access token works as a scoped key on the API-key routes, and nowhere else.
  t.is((await ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 200);
  const outOfScope = await ph.request('GET', '/v1/domains', { key: tokens.access_token });
  t.is(outOfScope.status, 403);
  t.regex(outOfScope.body.error, /domains:read/);
  t.is((await ph.request('GET', '/v1/auth/session', { key: tokens.access_token })).status, 401);
  // Nothing of the secrets is stored as given.
  const stored = await query<{ token_hash: string }>(
    ph.server.kernel.store,
    'select token_hash from oauth_tokens',
  );
  t.false(stored.some((row) => row.token_hash === tokens.access_token || row.token_hash.startsWith('ph')));

  // Refresh: a new pair; the old refresh token is spent.
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    registered.client,
    await oauth.refreshTokenGrantRequest(
      as,
      registered.client,
      registered.auth,
      tokens.refresh_token as string,
      insecure,
    ),
  );
  t.not(refreshed.access_token, tokens.access_token);
  t.not(refreshed.refresh_token, tokens.refresh_token);
  t.is((await ph.request('GET', '/v1/emails', { key: refreshed.access_token })).status, 200);

  // Narrowing on refresh: the access token has less, the refresh token keeps the grant's scopes.
  const narrowed = await oauth.processRefreshTokenResponse(
    as,
    registered.client,
    await oauth.refreshTokenGrantRequest(
      as,
      registered.client,
      registered.auth,
      refreshed.refresh_token as string,
      {
        ...insecure,
        additionalParameters: { scope: 'emails:send' },
      },
    ),
  );
  t.is(narrowed.scope, 'emails:send');
  t.is((await ph.request('GET', '/v1/emails', { key: narrowed.access_token })).status, 403);

  // The spent refresh token used again: the whole grant is revoked.
  const reuse = await oauth.refreshTokenGrantRequest(
    as,
    registered.client,
    registered.auth,
    tokens.refresh_token as string,
    insecure,
  );
  const error = await t.throwsAsync(oauth.processRefreshTokenResponse(as, registered.client, reuse));
  t.is((error as oauth.ResponseBodyError).error, 'invalid_grant');
  for (const token of [tokens.access_token, refreshed.access_token, narrowed.access_token])
    t.is((await ph.request('GET', '/v1/emails', { key: token })).status, 401);

  // Revocation (RFC 7009) of a fresh grant's refresh token ends its access token too.
  const again = await connect(env, registered);
  t.is((await ph.request('GET', '/v1/emails', { key: again.access_token })).status, 200);
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(
      as,
      registered.client,
      registered.auth,
      again.refresh_token as string,
      insecure,
    ),
  );
  const revoked = await ph.request('GET', '/v1/emails', { key: again.access_token });
  t.is(revoked.status, 401);
  t.regex(revoked.headers.get('www-authenticate') ?? '', /invalid_token/);
  // Revoking it again, or a token that never existed, answers the same.
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(
      as,
      registered.client,
      registered.auth,
      again.refresh_token as string,
      insecure,
    ),
  );
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, registered.client, registered.auth, `phr_${'x'.repeat(40)}`, insecure),
  );
});

for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
  test(`a confidential client (${method}) gets a secret once, exchanges its code with it, and is refused with a wrong one`, async (t) => {
    const env = await startOAuthEnv(t);
    const registered = await register(env, { token_endpoint_auth_method: method });
    t.regex(registered.secret ?? '', /^phcs_/);
    t.is(registered.client.client_secret_expires_at, 0);
    const tokens = await connect(env, registered);
    t.is((await env.ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 200);
    const [stored] = await query<{ secret_hash: string }>(
      env.ph.server.kernel.store,
      'select secret_hash from oauth_clients where id = ?',
      registered.client.client_id,
    );
    t.not(stored?.secret_hash, registered.secret);
    t.is(stored?.secret_hash.length, 64);

    const wrong =
      method === 'client_secret_basic' ? oauth.ClientSecretBasic('nope') : oauth.ClientSecretPost('nope');
    const response = await oauth.refreshTokenGrantRequest(
      env.as,
      registered.client,
      wrong,
      tokens.refresh_token as string,
      insecure,
    );
    t.is(response.status, 401);
    t.is(response.headers.get('cache-control'), 'no-store');
    t.is(((await response.json()) as { error: string }).error, 'invalid_client');
    t.is(
      response.headers.get('www-authenticate')?.startsWith('Basic') ?? false,
      method === 'client_secret_basic',
    );
  });
}

test('a request made with an access token is audited as the client acting for the member', async (t) => {
  const env = await startOAuthEnv(t);
  const registered = await register(env);
  const tokens = await connect(env, registered, 'suppressions:write');
  const res = await env.ph.request('POST', '/v1/suppressions', {
    key: tokens.access_token,
    body: { email: 'gone@example.net', reason: 'manual_block' },
  });
  t.is(res.status, 201);
  const logs = await env.ph.request('GET', '/v1/dashboard/audit-logs', { key: env.session });
  const record = (
    logs.body.data as { action: string; actor: Record<string, string>; details: Record<string, string> }[]
  ).find((r) => r.action === 'POST /v1/suppressions');
  t.truthy(record);
  t.deepEqual(record?.actor, { type: 'oauth', id: registered.client.client_id, auth_method: 'oauth' });
  t.is(record?.details.on_behalf_of, env.ph.owner.userId);
  t.regex(record?.details.grant_id ?? '', /^grt_/);
  const consented = (logs.body.data as { action: string; target: string }[]).find(
    (r) => r.action === 'oauth.authorize',
  );
  t.is(consented?.target, registered.client.client_id);
});

test('connected apps are listed with their last use, and disconnecting one ends its tokens at once', async (t) => {
  const env = await startOAuthEnv(t);
  const registered = await register(env);
  const tokens = await connect(env, registered);
  t.is((await env.ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 200);
  const listed = await env.ph.request('GET', '/v1/dashboard/oauth/grants', { key: env.session });
  t.is(listed.status, 200);
  const [grant] = listed.body.data;
  t.is(grant.client.client_id, registered.client.client_id);
  t.is(grant.client.client_name, 'Mail agent');
  t.deepEqual(grant.scopes, ['emails:send', 'emails:read']);
  t.truthy(grant.created_at);
  t.truthy(grant.last_used_at);

  const removed = await env.ph.request('DELETE', `/v1/dashboard/oauth/grants/${grant.id}`, {
    key: env.session,
  });
  t.is(removed.status, 204);
  t.is((await env.ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 401);
  const refresh = await oauth.refreshTokenGrantRequest(
    env.as,
    registered.client,
    registered.auth,
    tokens.refresh_token as string,
    insecure,
  );
  t.is(refresh.status, 400);
  t.is((await env.ph.request('GET', '/v1/dashboard/oauth/grants', { key: env.session })).body.data.length, 0);
  t.is(
    (await env.ph.request('DELETE', `/v1/dashboard/oauth/grants/${grant.id}`, { key: env.session })).status,
    404,
  );
});

test('the tokens of an application a removed member connected stop working', async (t) => {
  const env = await startOAuthEnv(t);
  const added = await env.ph.request('POST', '/v1/dashboard/organization/members', {
    body: { email: 'dev@example.test', role: 'developer' },
    key: env.session,
  });
  t.is(added.status, 201);
  const developer = await signIn(env.ph, 'dev@example.test');
  const registered = await register(env);
  const tokens = await connect({ ...env, session: developer }, registered);
  t.is((await env.ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 200);
  const removed = await env.ph.request('DELETE', `/v1/dashboard/organization/members/${added.body.id}`, {
    key: env.session,
  });
  t.is(removed.status, 204);
  // Membership is read again at most every 2 s.
  await new Promise((resolve) => setTimeout(resolve, 2100));
  const refused = await env.ph.request('GET', '/v1/emails', { key: tokens.access_token });
  t.is(refused.status, 401);
  t.regex(refused.body.error, /no longer belongs/);
  const refresh = await oauth.refreshTokenGrantRequest(
    env.as,
    registered.client,
    registered.auth,
    tokens.refresh_token as string,
    insecure,
  );
  t.is(refresh.status, 400);
});
