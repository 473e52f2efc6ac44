/**
 * Mailbox-provider connections through the dashboard's session routes, against a local server
 * answering as Google Postmaster Tools and Microsoft SNDS do: the credential is checked before it
 * is stored and never shown, a sync keeps what it fetched, a provider that is down leaves the data
 * in place, and a disconnect erases the credential.
 */
import test, { type ExecutionContext } from 'ava';
import { signInByCode, startAccountsEnv } from '../accounts/env.js';
import { ACCESS_TOKEN, GOOD_REFRESH, SNDS_KEY, startProviderServer } from './provider-server.js';

const BASE = '/v1/dashboard/reputation/connections';

async function setup(t: ExecutionContext) {
  const provider = await startProviderServer();
  t.teardown(() => provider.stop());
  const env = await startAccountsEnv(t, {
    reputation: {
      postmaster_api_url: provider.url,
      postmaster_token_url: `${provider.url}/token`,
      snds_api_url: `${provider.url}/snds`,
      provider_timeout: '2s',
    },
  });
  const { token } = await signInByCode(env, 'owner@example.test', 1);
  const call = (method: string, path: string, body?: unknown) =>
    env.ph.request(method, path, { key: token, ...(body === undefined ? {} : { body }) });
  const sealed = () =>
    env.ph.server.kernel.store.sqlite
      .prepare('select id, credential_sealed from reputation_connections')
      .all() as {
      id: string;
      credential_sealed: string;
    }[];
  return { env, provider, call, sealed };
}

test('Postmaster Tools: a refresh credential is checked, stored sealed, synced, and its data shows in the reputation center', async (t) => {
  const { env, provider, call, sealed } = await setup(t);
  const credential = JSON.stringify(GOOD_REFRESH);
  const created = await call('POST', BASE, { provider: 'provider_a_postmaster', credential });
  t.is(created.status, 201, created.text);
  t.like(created.body, { provider: 'provider_a_postmaster', status: 'pending', last_synced_at: null });
  t.regex(created.body.id, /^rep_/);
  t.false(created.text.includes('good-refresh'));
  t.true(provider.seen.includes('POST /token') && provider.seen.includes('GET /v1/domains'));
  const [row] = sealed();
  t.truthy(row);
  t.false(row?.credential_sealed.includes('good-refresh'), 'the credential is sealed');
  t.regex(row?.credential_sealed ?? '', /^v1\./);

  const list = await call('GET', BASE);
  t.is(list.status, 200);
  t.deepEqual(Object.keys(list.body.data[0]).sort(), [
    'created_at',
    'id',
    'last_error',
    'last_error_at',
    'last_synced_at',
    'provider',
    'status',
  ]);

  const synced = await call('POST', `${BASE}/${created.body.id}/sync`);
  t.is(synced.status, 200, synced.text);
  t.like(synced.body, {
    connection: { status: 'ok', last_error: null },
    fetched: { items: 2, subjects: ['acme.test'], days: ['2026-11-25', '2026-11-26'] },
  });
  t.regex(
    provider.trafficQueries[0] ?? '',
    /startDate\.year=\d{4}&startDate\.month=\d+&startDate\.day=\d+&endDate\.year=/,
  );
  const day = synced.body.data.find((item: { day: string }) => item.day === '2026-11-25');
  t.like(day.data, {
    spam_rate: 0.0012,
    domain_reputation: 'HIGH',
    dkim_success_ratio: 0.998,
    ip_reputations: [{ reputation: 'HIGH', ip_count: 2, sample_ips: ['192.0.2.10', '192.0.2.11'] }],
    delivery_errors: [{ class: 'TEMPORARY_ERROR', type: 'RATE_LIMIT_EXCEEDED', ratio: 0.004 }],
  });
  // The API key's view of the reputation center carries the provider data the sync kept (the
  // fixture's days are fixed, so they show while they are within the last 7 days).
  const report = await env.ph.request('GET', '/v1/reputation');
  t.is(report.body.providers.length, 1);
  t.like(report.body.providers[0], { id: created.body.id, provider: 'provider_a_postmaster', status: 'ok' });
  t.false(report.text.includes('good-refresh'));
});

test('a bare access token works too; a credential the provider refuses is a 400 and nothing is stored', async (t) => {
  const { call, sealed } = await setup(t);
  const token = await call('POST', BASE, { provider: 'provider_a_postmaster', credential: ACCESS_TOKEN });
  t.is(token.status, 201, token.text);
  const refused = await call('POST', BASE, {
    provider: 'provider_a_postmaster',
    credential: JSON.stringify({ ...GOOD_REFRESH, refresh_token: '1//revoked' }),
  });
  t.is(refused.status, 400, refused.text);
  t.regex(
    refused.body.error,
    /Google refused the refresh credential \(invalid_grant\)\. Nothing was stored\./,
  );
  t.is(refused.body.details[0].path, 'credential');
  const badToken = await call('POST', BASE, { provider: 'provider_a_postmaster', credential: 'ya29.wrong' });
  t.is(badToken.status, 400);
  t.regex(badToken.body.error, /refused the credential \(HTTP 401\)/);
  const badKey = await call('POST', BASE, { provider: 'provider_b_snds', credential: 'not-a-real-key-0000' });
  t.is(badKey.status, 400);
  t.regex(badKey.body.error, /Microsoft SNDS did not accept the key/);
  t.is(sealed().length, 1, 'only the accepted connection is stored');
  const unknown = await call('POST', BASE, { provider: 'provider_c_yahoo', credential: 'x' });
  t.is(unknown.status, 400);
  t.is(unknown.body.details[0].path, 'provider');
  const empty = await call('POST', BASE, { provider: 'provider_b_snds' });
  t.is(empty.status, 400);
  t.is(empty.body.details[0].path, 'credential');
});

test('SNDS: the CSV feed and the blocked ranges are kept; a sync while the provider is down fails clearly and keeps them', async (t) => {
  const { env, provider, call } = await setup(t);
  const created = await call('POST', BASE, { provider: 'provider_b_snds', credential: SNDS_KEY });
  t.is(created.status, 201, created.text);
  const synced = await call('POST', `${BASE}/${created.body.id}/sync`);
  t.is(synced.status, 200, synced.text);
  t.deepEqual(synced.body.fetched.subjects, ['192.0.2.10', '192.0.2.11', '192.0.2.11-192.0.2.11']);
  const red = synced.body.data.find(
    (item: { subject: string; kind: string }) => item.subject === '192.0.2.11' && item.kind === 'traffic',
  );
  t.like(red, {
    day: '2026-11-26',
    data: {
      filter_result: 'RED',
      complaint_rate: '2.5%',
      trap_hits: 3,
      message_recipients: 240,
      comments: 'Trap hits, complaints',
    },
  });
  const blocked = synced.body.data.find((item: { kind: string }) => item.kind === 'ip_status');
  t.like(blocked.data, { first_ip: '192.0.2.11', blocked: true });

  await provider.stop();
  const down = await call('POST', `${BASE}/${created.body.id}/sync`);
  t.is(down.status, 503, down.text);
  t.regex(
    down.body.error,
    /Microsoft SNDS did not answer at http:\/\/127\.0\.0\.1:\d+\/snds\/data\.aspx \(ECONNREFUSED\)\. The data fetched before is kept\./,
  );
  t.false(down.text.includes(SNDS_KEY), 'the key never appears in an error');
  const listed = await call('GET', BASE);
  t.like(listed.body.data[0], { status: 'failing' });
  t.regex(listed.body.data[0].last_error, /did not answer/);
  const report = await env.ph.request('GET', '/v1/reputation');
  const kept = report.body.providers[0].data.filter((item: { kind: string }) => item.kind === 'ip_status');
  t.is(kept.length, 1, 'the data fetched before is still shown');
});

test('disconnecting erases the credential and the data; the routes need a dashboard session', async (t) => {
  const { env, call, sealed } = await setup(t);
  const created = await call('POST', BASE, { provider: 'provider_b_snds', credential: SNDS_KEY });
  t.is((await call('POST', `${BASE}/${created.body.id}/sync`)).status, 200);
  const removed = await call('DELETE', `${BASE}/${created.body.id}`);
  t.is(removed.status, 204);
  t.is(sealed().length, 0);
  const rows = env.ph.server.kernel.store.sqlite
    .prepare('select count(*) as n from reputation_provider_data')
    .get() as {
    n: number;
  };
  t.is(rows.n, 0);
  t.is((await call('DELETE', `${BASE}/${created.body.id}`)).status, 404);
  t.is((await call('POST', `${BASE}/${created.body.id}/sync`)).status, 404);
  const withKey = await env.ph.request('GET', BASE);
  t.is(withKey.status, 401, 'an API key is not a dashboard session');
});

test('an analyst sees the connections but may not connect, sync or disconnect them', async (t) => {
  const { env, call } = await setup(t);
  const created = await call('POST', BASE, { provider: 'provider_b_snds', credential: SNDS_KEY });
  t.is(created.status, 201, created.text);
  const added = await call('POST', '/v1/dashboard/organization/members', {
    email: 'analyst@example.test',
    role: 'analyst',
  });
  t.is(added.status, 201, added.text);
  // Signed in with a password an operator set, so no second mail is awaited.
  const users = env.ph.server.services.accounts.users;
  const user = await users.findByEmail('analyst@example.test');
  if (!user) throw new Error('the analyst has no account');
  await users.setPassword(user, 'a long enough password');
  const login = await env.ph.request('POST', '/v1/auth/login-password', {
    key: null,
    body: { email: 'analyst@example.test', password: 'a long enough password' },
  });
  t.is(login.status, 200, login.text);
  const as = (method: string, path: string, body?: unknown) =>
    env.ph.request(method, path, { key: login.body.token, ...(body === undefined ? {} : { body }) });
  const list = await as('GET', BASE);
  t.is(list.status, 200);
  t.is(list.body.data.length, 1);
  const connect = await as('POST', BASE, { provider: 'provider_b_snds', credential: SNDS_KEY });
  t.is(connect.status, 403);
  t.regex(
    connect.body.error,
    /Your role \(analyst\) may not connect, sync or disconnect reputation providers/,
  );
  t.is((await as('POST', `${BASE}/${created.body.id}/sync`)).status, 403);
  t.is((await as('DELETE', `${BASE}/${created.body.id}`)).status, 403);
});
