/**
 * The dashboard's session cookie over plain HTTP: what sign-in sets, what a cookie request may do
 * on session and API-key routes, the CSRF checks on state-changing requests, and the headers of
 * the pages. Bearer credentials keep working exactly as before.
 */
import { request } from 'node:http';
import test from 'ava';
import { codeIn, receivedMail, startAccountsEnv } from '../accounts/env.js';
import type { DeliveryEnv } from '../delivery/env.js';
import { startPosthorn } from '../helpers/server.js';

const OWNER = 'owner@example.test';

function rawPost(url: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function signIn(env: DeliveryEnv, email = OWNER, mailNumber = 1) {
  await env.ph.request('POST', '/v1/auth/request-code', { key: null, body: { email } });
  const code = codeIn(await receivedMail(env, mailNumber));
  const res = await env.ph.request('POST', '/v1/dashboard/web/sign-in/code', {
    key: null,
    body: { email, code },
    headers: { 'X-Posthorn-CSRF': 'sign-in', Origin: env.ph.url },
  });
  const cookies = res.headers.getSetCookie();
  const value = (name: string) =>
    cookies
      .find((c) => c.startsWith(`${name}=`))
      ?.split(';')[0]
      ?.split('=')[1] ?? '';
  return { res, cookies, token: value('ph_session'), csrf: value('ph_csrf') };
}

test('sign-in sets an HttpOnly SameSite=Strict session cookie and a CSRF cookie, the token is not in the body, and Bearer credentials work as before', async (t) => {
  const env = await startAccountsEnv(t);
  const { res, cookies, token, csrf } = await signIn(env);
  t.is(res.status, 200, res.text);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.deepEqual(Object.keys(res.body), ['session']);
  t.is(res.body.session.email, OWNER);
  t.false(res.text.includes(token));
  t.regex(token, /^phs_/);
  const session = cookies.find((c) => c.startsWith('ph_session='))!;
  t.regex(session, /; Path=\//);
  t.regex(session, /; SameSite=Strict/);
  t.regex(session, /; HttpOnly/);
  t.notRegex(session, /Secure/, 'plain http: no Secure flag');
  const csrfCookie = cookies.find((c) => c.startsWith('ph_csrf='))!;
  t.notRegex(csrfCookie, /HttpOnly/, 'the page reads the CSRF token');
  t.truthy(csrf);

  // Bearer credentials are unchanged: a session token on an API-key route is 401, a key on a session route 401.
  t.is((await env.ph.request('GET', '/v1/domains', { key: token })).status, 401);
  t.is((await env.ph.request('GET', '/v1/auth/session')).status, 401);
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: token })).status, 200);
  t.is((await env.ph.request('GET', '/v1/domains')).status, 200);
});

test('a cookie request works on session and API-key routes; changes need the CSRF header and a same-site Origin', async (t) => {
  const env = await startAccountsEnv(t);
  const { token, csrf } = await signIn(env);
  const cookie = `ph_session=${token}; ph_csrf=${csrf}`;
  const asBrowser = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    env.ph.request(method, path, { key: null, headers: { cookie, ...headers }, ...(body ? { body } : {}) });

  t.is((await asBrowser('GET', '/v1/auth/session')).body.email, OWNER);
  // API-key routes act for the member, on the session's project.
  const domains = await asBrowser('GET', '/v1/domains');
  t.is(domains.status, 200, domains.text);
  const body = { name: 'cookie.test' };
  const noHeader = await asBrowser('POST', '/v1/domains', {}, body);
  t.is(noHeader.status, 403);
  t.regex(noHeader.body.error, /Cross-site request refused: the X-Posthorn-CSRF header is missing/);
  const wrong = await asBrowser('POST', '/v1/domains', { 'X-Posthorn-CSRF': 'guess' }, body);
  t.is(wrong.status, 403);
  t.regex(wrong.body.error, /does not match/);
  // fetch() drops Origin and Sec-Fetch-* (a browser sets them itself); node:http sends them as written.
  const crossSite = await rawPost(`${env.ph.url}/v1/domains`, JSON.stringify(body), {
    cookie,
    'content-type': 'application/json',
    'x-posthorn-csrf': csrf,
    origin: 'https://evil.example',
  });
  t.is(crossSite.status, 403);
  t.regex(crossSite.body, /Origin https:\/\/evil.example is not this dashboard's/);
  const fetchSite = await rawPost(`${env.ph.url}/v1/domains`, JSON.stringify(body), {
    cookie,
    'content-type': 'application/json',
    'x-posthorn-csrf': csrf,
    'sec-fetch-site': 'cross-site',
  });
  t.is(fetchSite.status, 403);
  t.regex(fetchSite.body, /Sec-Fetch-Site is cross-site/);
  const created = await asBrowser(
    'POST',
    '/v1/domains',
    { 'X-Posthorn-CSRF': csrf, Origin: env.ph.url },
    body,
  );
  t.is(created.status, 201, created.text);
  t.is((await env.ph.request('GET', `/v1/domains/${created.body.id}`)).status, 200, 'in the owner project');

  // The audit log names the person, not a key.
  const audit = await env.ph.request('GET', '/v1/dashboard/audit-logs', { key: token });
  const record = audit.body.data.find((r: { action: string }) => r.action === 'POST /v1/domains');
  t.like(record, { actor: { type: 'session', auth_method: 'email_code' }, target: created.body.id });
  t.regex(record.actor.id, /^usr_/);

  // Sign-in without the header (a cross-site form) is refused before credentials are read.
  const formPost = await env.ph.request('POST', '/v1/dashboard/web/sign-in/password', {
    key: null,
    body: { email: OWNER, password: 'whatever long password' },
  });
  t.is(formPost.status, 403);
});

test('an analyst reads through the dashboard but may not change; sign-out ends the session and clears both cookies', async (t) => {
  const env = await startAccountsEnv(t);
  const owner = await signIn(env);
  const invited = await env.ph.request('POST', '/v1/dashboard/organization/members', {
    key: owner.token,
    body: { email: 'analyst@example.test', role: 'analyst' },
  });
  t.is(invited.status, 201, invited.text);
  await receivedMail(env, 2); // the invitation
  const analyst = await signIn(env, 'analyst@example.test', 3);
  const cookie = `ph_session=${analyst.token}; ph_csrf=${analyst.csrf}`;
  const headers = { cookie, 'X-Posthorn-CSRF': analyst.csrf };
  t.is((await env.ph.request('GET', '/v1/domains', { key: null, headers })).status, 200);
  const refused = await env.ph.request('POST', '/v1/domains', {
    key: null,
    headers,
    body: { name: 'x.test' },
  });
  t.is(refused.status, 403);
  t.is(refused.body.error, 'Your role (analyst) may not use this; it needs the `domains:write` scope.');

  const out = await env.ph.request('POST', '/v1/dashboard/web/sign-out', { key: null, headers });
  t.is(out.status, 204);
  const cleared = out.headers.getSetCookie();
  t.true(cleared.some((c) => /^ph_session=;.*Max-Age=0/.test(c)));
  t.true(cleared.some((c) => /^ph_csrf=;.*Max-Age=0/.test(c)));
  t.is((await env.ph.request('GET', '/v1/auth/session', { key: null, headers })).status, 401);
});

test('the pages carry a strict CSP and framing and referrer headers; assets are precompressed and immutable; API paths stay JSON', async (t) => {
  const ph = await startPosthorn(t);
  const env = { ph };
  const page = await fetch(`${env.ph.url}/messages/msg_x`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  const csp = page.headers.get('content-security-policy') ?? '';
  for (const directive of [
    "default-src 'none'",
    "script-src 'self'",
    "frame-ancestors 'none'",
    "connect-src 'self'",
  ])
    t.true(csp.includes(directive), directive);
  t.false(csp.includes('unsafe-inline'));
  t.is(page.headers.get('x-frame-options'), 'DENY');
  t.is(page.headers.get('referrer-policy'), 'no-referrer');
  const html = await page.text();
  t.notRegex(html, /https?:\/\//, 'nothing loaded from another origin');
  const script = /src="(assets\/app-[^"]+\.js)"/.exec(html)?.[1];
  t.truthy(script);
  const asset = await fetch(`${env.ph.url}/${script}`, { headers: { 'accept-encoding': 'br' } });
  t.is(asset.status, 200);
  t.is(asset.headers.get('content-encoding'), 'br');
  t.is(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.is((await fetch(`${env.ph.url}/assets/app-missing.js`)).status, 404);
  const api = await fetch(`${env.ph.url}/v1/nothing-here`);
  t.is(api.status, 404);
  t.deepEqual(await api.json(), { error: 'No route for GET /v1/nothing-here.' });
  t.is((await fetch(`${env.ph.url}/health`)).headers.get('content-type'), 'application/json; charset=utf-8');
});
