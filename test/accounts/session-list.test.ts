/**
 * A person sees their active sessions and ends the ones they do not recognise (ASVS 3.3.4):
 * times, the network (truncated address) and the kind of client, the current one marked.
 */
import test from 'ava';
import { codeIn, post, receivedMail, signInByCode, startAccountsEnv } from './env.js';

const OWNER = 'owner@example.test';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0';

interface Listed {
  id: string;
  current: boolean;
  organization_id: string;
  auth_method: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ip_network: string | null;
  client: string | null;
}

test('the sessions list shows each session with its times, network and kind of client; one ends, then all others; the current one stays', async (t) => {
  const env = await startAccountsEnv(t);
  const signIn = async (n: number, agent: string) => {
    await env.ph.request('POST', '/v1/auth/request-code', {
      key: null,
      body: { email: OWNER },
      headers: { 'User-Agent': agent },
    });
    const code = codeIn(await receivedMail(env, n));
    const res = await env.ph.request('POST', '/v1/auth/verify-code', {
      key: null,
      body: { email: OWNER, code },
      headers: { 'User-Agent': agent },
    });
    t.is(res.status, 200, res.text);
    return res.body as { token: string; session: { id: string } };
  };
  const laptop = await signIn(1, FIREFOX);
  const script = await signIn(2, 'curl/8.5.0');
  const third = await signIn(3, FIREFOX);

  const listed = await env.ph.request<{ data: Listed[] }>('GET', '/v1/dashboard/account/sessions', {
    key: laptop.token,
  });
  t.is(listed.status, 200, listed.text);
  t.deepEqual(
    listed.body.data.map((s) => [s.id, s.current, s.client, s.ip_network, s.auth_method]),
    [
      [third.session.id, false, 'Firefox on Windows', '127.0.0.0/24', 'email_code'],
      [script.session.id, false, 'curl', '127.0.0.0/24', 'email_code'],
      [laptop.session.id, true, 'Firefox on Windows', '127.0.0.0/24', 'email_code'],
    ],
  );
  const mine = listed.body.data[2] as Listed;
  t.is(mine.organization_id, env.ph.owner.organizationId);
  for (const field of ['created_at', 'last_seen_at', 'expires_at'] as const)
    t.false(Number.isNaN(Date.parse(mine[field])), field);
  t.true(Date.parse(mine.expires_at) > Date.now());
  t.false(listed.text.includes('Gecko/20100101'), 'the whole user agent is not shown');
  t.false(listed.text.includes('phs_'), 'no token is shown');

  // End the script's session: its token stops working at once; the others go on.
  const end = await env.ph.request('DELETE', `/v1/dashboard/account/sessions/${script.session.id}`, {
    key: laptop.token,
  });
  t.is(end.status, 204, end.text);
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: script.token })).status, 401);
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: third.token })).status, 200);
  const again = await env.ph.request('DELETE', `/v1/dashboard/account/sessions/${script.session.id}`, {
    key: laptop.token,
  });
  t.is(again.status, 404, 'an ended session is not found');
  const current = await env.ph.request('DELETE', `/v1/dashboard/account/sessions/${laptop.session.id}`, {
    key: laptop.token,
  });
  t.is(current.status, 409, current.text);
  t.regex(current.body.error, /POST \/v1\/auth\/logout/);

  // All others: the count, and only the current one is left.
  const others = await post(env, '/v1/dashboard/account/sessions/end-others', undefined, laptop.token);
  t.is(others.status, 200, others.text);
  t.deepEqual(others.body, { ended: 1 });
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: third.token })).status, 401);
  const left = await env.ph.request<{ data: Listed[] }>('GET', '/v1/dashboard/account/sessions', {
    key: laptop.token,
  });
  t.deepEqual(
    left.body.data.map((s) => [s.id, s.current]),
    [[laptop.session.id, true]],
  );

  const log = await env.ph.request('GET', '/v1/dashboard/audit-logs?limit=20', { key: laptop.token });
  const records = (log.body.data as { action: string; target: string | null; details: { ended?: number } }[])
    .filter((r) => r.action.startsWith('account.'))
    .map((r) => [r.action, r.target, r.details.ended]);
  t.deepEqual(records, [
    ['account.sessions_end_others', null, 1],
    ['account.session_end', script.session.id, undefined],
  ]);
});

test("another person's session cannot be seen or ended: its ID is a 404 and it keeps working", async (t) => {
  const env = await startAccountsEnv(t);
  const owner = await signInByCode(env, OWNER, 1);
  const added = await post(
    env,
    '/v1/dashboard/organization/members',
    { email: 'dev@example.test', role: 'developer' },
    owner.token,
  );
  t.is(added.status, 201, added.text);
  const dev = await signInByCode(env, 'dev@example.test', 3);
  const listed = await env.ph.request('GET', '/v1/dashboard/account/sessions', { key: owner.token });
  t.deepEqual(
    (listed.body.data as { id: string }[]).map((s) => s.id),
    [owner.session.id],
    "only the person's own sessions are listed",
  );
  const end = await env.ph.request('DELETE', `/v1/dashboard/account/sessions/${dev.session.id}`, {
    key: owner.token,
  });
  t.is(end.status, 404, end.text);
  const others = await post(env, '/v1/dashboard/account/sessions/end-others', undefined, owner.token);
  t.deepEqual(others.body, { ended: 0 });
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: dev.token })).status, 200);
});
