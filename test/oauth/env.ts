/**
 * The OAuth tests' world: a real Posthorn on a loopback port chosen beforehand, so that its issuer
 * (`server.public_url`) is the URL clients reach; a signed-in owner (a dashboard session made by
 * password login); and an independent OAuth client library (oauth4webapi) that drives discovery,
 * registration, PKCE, the code exchange, refresh and revocation. The test plays the dashboard's
 * consent page: it reads the authorization URL the client built and calls the session API with it.
 */

import { createServer } from 'node:net';
import type { ExecutionContext } from 'ava';
import * as oauth from 'oauth4webapi';
import { ListenError } from '../../src/platform/listen-error.js';
import type { ConfigOverrides, Posthorn } from '../helpers/server.js';
import { startPosthorn } from '../helpers/server.js';

export const OWNER = 'owner@example.test';
const PASSWORD = 'correct horse battery staple';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Config that makes the server's issuer the URL it listens on. */
export async function issuerConfig(overrides: ConfigOverrides = {}): Promise<ConfigOverrides> {
  const port = await freePort();
  return {
    ...overrides,
    server: { listen: `127.0.0.1:${port}`, public_url: `http://127.0.0.1:${port}`, ...overrides.server },
  };
}

/** Signs `email` (already a member) in by password; returns the session token. */
export async function signIn(ph: Posthorn, email = OWNER): Promise<string> {
  const { users } = ph.server.services.accounts;
  const user = await users.findByEmail(email);
  if (!user) throw new Error(`no user ${email}`);
  await users.setPassword(user, PASSWORD);
  const res = await ph.request('POST', '/v1/auth/login-password', {
    body: { email, password: PASSWORD },
    key: null,
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${res.text}`);
  return res.body.token as string;
}

export interface OAuthEnv {
  readonly ph: Posthorn;
  readonly session: string;
  readonly as: oauth.AuthorizationServer;
  readonly issuer: URL;
}

const insecure = { [oauth.allowInsecureRequests]: true } as const;

export async function discover(ph: Posthorn): Promise<{ as: oauth.AuthorizationServer; issuer: URL }> {
  const issuer = new URL(ph.config.server.public_url);
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure });
  return { as: await oauth.processDiscoveryResponse(issuer, response), issuer };
}

/**
 * Runs `start` with an issuer config (issuerConfig), on another free port when the one chosen was
 * taken before the server listened on it: a port the kernel has just freed is handed out again, to
 * another test's server or as the source port of a connection (seen on a loaded host, as "the
 * address is already in use"). Only that error is tried again.
 */
export async function onFreePort<T>(
  overrides: ConfigOverrides,
  start: (config: ConfigOverrides) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await issuerConfig(overrides));
    } catch (error) {
      const inUse = error instanceof ListenError && (error.cause as { code?: string })?.code === 'EADDRINUSE';
      if (!inUse || attempt === 5) throw error;
    }
  }
}

export async function startOAuthEnv(t: ExecutionContext, overrides: ConfigOverrides = {}): Promise<OAuthEnv> {
  const ph = await onFreePort(overrides, (config) => startPosthorn(t, config));
  const { as, issuer } = await discover(ph);
  return { ph, session: await signIn(ph), as, issuer };
}

export const REDIRECT = 'http://127.0.0.1:53682/callback';

export interface Registered {
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
  readonly secret?: string;
}

/** Registers a client through oauth4webapi. */
export async function register(
  env: Pick<OAuthEnv, 'as'>,
  metadata: Partial<oauth.Client> = {},
): Promise<Registered> {
  const response = await oauth.dynamicClientRegistrationRequest(
    env.as,
    {
      redirect_uris: [REDIRECT],
      client_name: 'Mail agent',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    },
    insecure,
  );
  const client = await oauth.processDynamicClientRegistrationResponse(response);
  const secret = client.client_secret as string | undefined;
  const auth =
    client.token_endpoint_auth_method === 'client_secret_basic'
      ? oauth.ClientSecretBasic(secret as string)
      : client.token_endpoint_auth_method === 'client_secret_post'
        ? oauth.ClientSecretPost(secret as string)
        : oauth.None();
  return { client, auth, ...(secret === undefined ? {} : { secret }) };
}

export interface Authorized {
  readonly verifier: string;
  readonly state: string;
  /** The authorization URL the client built, whose query the dashboard reads. */
  readonly url: URL;
  /** Where the dashboard sent the browser back. */
  readonly callback: URL;
}

/** The client's authorization URL for `scope`, with PKCE S256 and a state. */
export async function authorizationUrl(
  env: Pick<OAuthEnv, 'as'>,
  client: oauth.Client,
  scope: string,
): Promise<{ url: URL; verifier: string; state: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(env.as.authorization_endpoint as string);
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', REDIRECT);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return { url, verifier, state };
}

/** The dashboard's part: the consent context, then the member's approval. */
export async function consent(env: OAuthEnv, url: URL, session = env.session): Promise<URL> {
  const query = url.search;
  const context = await env.ph.request('GET', `/v1/dashboard/oauth/authorize-context${query}`, {
    key: session,
  });
  if (context.status !== 200) throw new Error(`authorize-context: ${context.status} ${context.text}`);
  const body = Object.fromEntries(url.searchParams);
  const approved = await env.ph.request('POST', '/v1/dashboard/oauth/authorize', { body, key: session });
  if (approved.status !== 200) throw new Error(`authorize: ${approved.status} ${approved.text}`);
  return new URL(approved.body.redirect_to as string);
}

export type Connected = Pick<
  oauth.TokenEndpointResponse,
  'access_token' | 'refresh_token' | 'scope' | 'expires_in' | 'token_type'
> &
  Authorized;

/** The whole flow up to the first tokens. */
export async function connect(
  env: OAuthEnv,
  registered: Registered,
  scope = 'emails:send emails:read',
): Promise<Connected> {
  const { url, verifier, state } = await authorizationUrl(env, registered.client, scope);
  const callback = await consent(env, url);
  const params = oauth.validateAuthResponse(env.as, registered.client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    env.as,
    registered.client,
    registered.auth,
    params,
    REDIRECT,
    verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(env.as, registered.client, response);
  return { ...tokens, verifier, state, url, callback };
}

export { insecure };
