/**
 * What an OAuth grant is bounded by: the lifetimes of its tokens (from config) and the project the
 * member consented for. Tokens are aged in the store (their `expires_at`), the way time would.
 * Runs on both engines (test/postgres-suites.txt lists test/oauth).
 */
import test from 'ava';
import * as oauth from 'oauth4webapi';
import { newId } from '../../src/platform/ids.js';
import { query } from '../helpers/sql.js';
import { connect, insecure, register, startOAuthEnv } from './env.js';

test('tokens live as long as the config says: an expired access token is refused, an expired refresh token is invalid_grant and issues nothing', async (t) => {
  const env = await startOAuthEnv(t, {
    oauth: { access_token_lifetime: '2m', refresh_token_lifetime: '10m' },
  });
  const { as, ph } = env;
  const registered = await register(env);
  const before = Date.now();
  const tokens = await connect(env, registered);
  t.is(tokens.expires_in, 120, 'expires_in is access_token_lifetime');
  const stored = await query<{ kind: string; expires_at: number | string }>(
    ph.server.kernel.store,
    'select kind, expires_at from oauth_tokens',
  );
  const lifetime = (kind: string) => Number(stored.find((row) => row.kind === kind)?.expires_at) - before;
  t.true(Math.abs(lifetime('refresh') - 600_000) < 10_000, 'the refresh token lives refresh_token_lifetime');
  t.true(Math.abs(lifetime('access') - 120_000) < 10_000);
  t.is((await ph.request('GET', '/v1/emails', { key: tokens.access_token })).status, 200);

  // Two minutes on: the access token no longer works; the refresh token still gets a new pair.
  await query(
    ph.server.kernel.store,
    "update oauth_tokens set expires_at = ? where kind = 'access'",
    Date.now() - 1,
  );
  const expired = await ph.request('GET', '/v1/emails', { key: tokens.access_token });
  t.is(expired.status, 401, expired.text);
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
  t.is((await ph.request('GET', '/v1/emails', { key: refreshed.access_token })).status, 200);

  // Past the refresh token's lifetime: invalid_grant, and no token is issued.
  await query(
    ph.server.kernel.store,
    "update oauth_tokens set expires_at = ? where kind = 'refresh' and used_at is null",
    Date.now() - 1,
  );
  const [count] = await query<{ n: number | string }>(
    ph.server.kernel.store,
    'select count(*) as n from oauth_tokens',
  );
  const res = await fetch(`${ph.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshed.refresh_token as string,
      client_id: registered.client.client_id,
    }),
  });
  t.is(res.status, 400);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.is(((await res.json()) as { error: string }).error, 'invalid_grant');
  const [after] = await query<{ n: number | string }>(
    ph.server.kernel.store,
    'select count(*) as n from oauth_tokens',
  );
  t.is(Number(after?.n), Number(count?.n), 'nothing issued');
});

test('an access token acts on the project of the consent only, whatever project header it sends', async (t) => {
  const env = await startOAuthEnv(t);
  const { ph } = env;
  const now = Date.now();
  const other = newId('prj', now);
  await ph.server.kernel.db
    .insertInto('projects')
    .values({
      id: other,
      organization_id: ph.owner.organizationId,
      name: 'Staging',
      status: 'active',
      created_at: now,
      updated_at: now,
    })
    .execute();
  const otherKey = await ph.createKey(other, ['full_access']);
  const elsewhere = await ph.request('POST', '/v1/emails', {
    key: otherKey,
    body: { from: ph.config.sandbox.from, to: ['owner@example.test'], subject: 'Staging only', text: 'x' },
  });
  t.is(elsewhere.status, 202, elsewhere.text);

  const tokens = await connect(env, await register(env), 'emails:send emails:read');
  const asked = await ph.request('GET', `/v1/emails/${elsewhere.body.id}`, { key: tokens.access_token });
  t.is(asked.status, 404, 'a message of another project of the same organization is not found');
  const headed = await ph.request('GET', `/v1/emails/${elsewhere.body.id}`, {
    key: tokens.access_token,
    headers: { 'X-Posthorn-Project-ID': other },
  });
  t.is(headed.status, 404, 'the project header does not move a token to another project');

  const sent = await ph.request('POST', '/v1/emails', {
    key: tokens.access_token,
    body: { from: ph.config.sandbox.from, to: ['owner@example.test'], subject: 'By the agent', text: 'x' },
  });
  t.is(sent.status, 202, sent.text);
  t.is((await ph.request('GET', `/v1/emails/${sent.body.id}`)).status, 200, 'in the consent’s project');
  t.is((await ph.request('GET', `/v1/emails/${sent.body.id}`, { key: otherKey })).status, 404);
});
