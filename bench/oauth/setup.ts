/**
 * The OAuth benchmark's tenant, made through the real API on a fresh data dir: a project with a
 * verified domain and a live API key (emails:send), and a public client connected by its owner
 * (registration, consent, PKCE code exchange) whose access token has emails:send. With `trusted`,
 * the project trusts the client, so its sends are queued like the key's; without, they are held.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RunningServer } from '../../src/server.js';
import { benchProject } from '../project.js';

export interface Tenant {
  readonly apiKey: string;
  readonly accessToken: string;
}

async function call(
  server: RunningServer,
  method: string,
  path: string,
  init: { body?: unknown; bearer?: string; form?: Record<string, string> },
) {
  const headers: Record<string, string> = {};
  if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
  let body: string | undefined;
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  } else if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  const parsed = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

export async function prepareTenant(server: RunningServer, trusted: boolean): Promise<Tenant> {
  const email = 'ops@acme.test';
  const { key } = await benchProject(server, { email, scopes: ['emails:send'], domain: 'acme.test' });
  const { users } = server.services.accounts;
  const user = await users.findByEmail(email);
  if (!user) throw new Error('no bench user');
  await users.setPassword(user, 'bench password, long enough');
  const login = await call(server, 'POST', '/v1/auth/login-password', {
    body: { email, password: 'bench password, long enough' },
  });
  const session = login.token as string;
  const redirect = 'http://127.0.0.1:9/callback';
  const client = await call(server, 'POST', '/oauth/register', {
    body: { redirect_uris: [redirect], token_endpoint_auth_method: 'none', client_name: 'Bench agent' },
  });
  const clientId = client.client_id as string;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const approved = await call(server, 'POST', '/v1/dashboard/oauth/authorize', {
    bearer: session,
    body: {
      client_id: clientId,
      redirect_uri: redirect,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'emails:send',
    },
  });
  const code = new URL(approved.redirect_to as string).searchParams.get('code') as string;
  const tokens = await call(server, 'POST', '/oauth/token', {
    form: {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: redirect,
      code_verifier: verifier,
    },
  });
  if (trusted)
    await call(server, 'PUT', '/v1/dashboard/send-approvals/policy', {
      bearer: session,
      body: { require_approval: true, trusted_clients: [clientId] },
    });
  return { apiKey: key, accessToken: tokens.access_token as string };
}
