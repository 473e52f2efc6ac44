/**
 * The fuzzers' world: a real Posthorn on loopback with a real DNS server (so domains verify), and
 * tenants made the way users make them: an organization with a project, a full-access key, a test
 * key, a signed-in owner's session, and one of each resource its API creates (domain, template,
 * webhook, audience, contact, broadcast, suppression, scheduled message, API key, member). Every
 * ID a tenant can see (its list routes walked) is gathered, so the fuzzers aim at real IDs.
 */
import type { ExecutionContext } from 'ava';
import { newId } from '../../../src/platform/ids.js';
import { type DnsTestServer, startDnsServer } from '../../helpers/dns-server.js';
import { type Posthorn, type Response, startPosthorn } from '../../helpers/server.js';

export const PASSWORD = 'a long enough password for tests';
const EHLO = 'mta.posthorn.test';

export interface Tenant {
  readonly name: string;
  readonly email: string;
  readonly organizationId: string;
  readonly projectId: string;
  key: string;
  testKey: string;
  session: string;
  /** Every resource ID this tenant's own routes showed it (msg_, dom_, tpl_, ...). */
  readonly ids: Set<string>;
  readonly domain: string;
}

export interface World {
  readonly ph: Posthorn;
  readonly dns: DnsTestServer;
  readonly document: OpenApi;
}

export interface OpenApi {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { readonly schemas: Record<string, unknown> };
}

export interface Operation {
  readonly operationId: string;
  readonly parameters: readonly {
    name: string;
    in: string;
    required: boolean;
    schema: Record<string, unknown>;
  }[];
  readonly requestBody?: { required: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  readonly responses: Record<
    string,
    { description: string; content?: Record<string, { schema: Record<string, unknown> }> }
  >;
  readonly security: readonly Record<string, unknown>[];
}

const idShape = /^[a-z]{2,5}(?:_log)?_[0-9A-Za-z]{10,40}$/;

/** Collects every string shaped like a resource ID anywhere in a response body. */
export function harvest(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    if (idShape.test(value)) into.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) harvest(item, into);
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) harvest(item, into);
  }
}

export async function startWorld(t: ExecutionContext | null): Promise<World> {
  const dns = await startDnsServer();
  t?.teardown(() => dns.stop());
  dns.set(EHLO, 'A', ['127.0.0.1']);
  const ph = await startPosthorn(t, {
    dns: { servers: [dns.address], timeout_ms: 1000 },
    webhooks: { allow_http: true, allow_private_targets: true },
    delivery: { enabled: false, hostname: EHLO, sending_ips: ['192.0.2.25'] },
    // The fuzzer sends thousands of requests from one address and key: limits would answer most
    // of them 429, and the fuzzer would test the limiter instead of the routes (429s stay legal).
    limits: { sends_per_minute_per_key: 1_000_000, login_attempts_per_hour: 1_000_000 },
    accounts: { login_attempts_per_hour_per_ip: 1_000_000, login_codes_per_hour: 1_000_000 },
    // Mailbox providers' APIs are out of reach here: a closed loopback port answers at once.
    reputation: {
      postmaster_api_url: 'http://127.0.0.1:9',
      postmaster_token_url: 'http://127.0.0.1:9/token',
      snds_api_url: 'http://127.0.0.1:9/snds',
    },
  });
  const doc = await ph.request<OpenApi>('GET', '/openapi.json', { key: null });
  if (doc.status !== 200) throw new Error(`openapi.json: ${doc.status}`);
  return { ph, dns, document: doc.body };
}

async function must(res: Promise<Response>, what: string): Promise<Response> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  return r;
}

/** A new organization with its project, credentials and one of each resource. */
export async function makeTenant(world: World, name: string): Promise<Tenant> {
  const { ph } = world;
  const email = `owner-${name}@example.test`;
  const boot = await ph.bootstrap(email);
  const session = await signIn(world, email);
  const tenant: Tenant = {
    name,
    email,
    organizationId: boot.organizationId,
    projectId: boot.projectId,
    key: boot.apiKey,
    testKey: await ph.createKey(boot.projectId, ['full_access'], 'test'),
    session,
    ids: new Set(),
    domain: `${name}-mail.test`,
  };
  await seedProject(world, tenant, true);
  return tenant;
}

/**
 * A second project in an existing tenant's organization (there is no route that makes one yet;
 * an operator's row is what `posthorn admin` writes), seeded through the API with its own key.
 */
export async function makeSiblingProject(world: World, of: Tenant, name: string): Promise<Tenant> {
  const { ph } = world;
  const now = Date.now();
  const projectId = newId('prj', now);
  await ph.server.kernel.db
    .insertInto('projects')
    .values({
      id: projectId,
      organization_id: of.organizationId,
      name,
      status: 'sandbox',
      created_at: now,
      updated_at: now,
    })
    .execute();
  const tenant: Tenant = {
    name,
    email: of.email,
    organizationId: of.organizationId,
    projectId,
    key: await ph.createKey(projectId, ['full_access'], 'live'),
    testKey: await ph.createKey(projectId, ['full_access'], 'test'),
    session: of.session,
    ids: new Set(),
    domain: `${name}-mail.test`,
  };
  await seedProject(world, tenant, false);
  return tenant;
}

export async function signIn(world: World, email: string): Promise<string> {
  const { ph } = world;
  const user = await ph.server.services.accounts.users.findByEmail(email);
  if (!user) throw new Error(`no user ${email}`);
  await ph.server.services.accounts.users.setPassword(user, PASSWORD);
  const login = await must(
    ph.request('POST', '/v1/auth/login-password', { key: null, body: { email, password: PASSWORD } }),
    'login',
  );
  return login.body.token as string;
}

/** One of each resource the project's key (and, with `withSession`, its owner) can make. */
async function seedProject(world: World, tenant: Tenant, withSession: boolean): Promise<void> {
  const { ph, dns } = world;
  const { key, session, ids, name, domain } = tenant;
  const as = (body: unknown, path: string, method = 'POST', credential = key) =>
    must(ph.request(method, path, { key: credential, body }), `${method} ${path}`).then((r) => {
      harvest(r.body, ids);
      return r;
    });
  // Webhooks first, so that the events below leave delivery attempts (whd_) behind.
  await as({ url: 'http://127.0.0.1:9/hook', events: ['*'] }, '/v1/webhooks');
  const created = await as({ name: domain }, '/v1/domains');
  for (const record of created.body.records as {
    type: string;
    host: string;
    value: string;
    value_strings?: string[];
  }[]) {
    if (record.type === 'TXT') dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
  }
  dns.set(domain, 'MX', [{ preference: 10, exchange: EHLO }]);
  await as(undefined, `/v1/domains/${created.body.id}/verify`);
  const from = `Sender <hello@${domain}>`;
  const template = await as(
    { name: 'Welcome', subject: 'Hi {{name}}', html_body: '<p>Hello {{name}}</p>', variables: ['name'] },
    '/v1/templates',
  );
  await as(undefined, `/v1/templates/${template.body.id}/publish`);
  const audience = await as({ name: 'Newsletter' }, '/v1/audiences');
  await as(
    {
      email: `reader-${name}@example.net`,
      consent_source: 'signup form',
      consent_at: new Date().toISOString(),
    },
    `/v1/audiences/${audience.body.id}/contacts`,
  );
  await as({ audience_id: audience.body.id, from, subject: 'News', html: '<p>News</p>' }, '/v1/broadcasts');
  await as({ email: `blocked-${name}@example.net`, reason: 'manual_block' }, '/v1/suppressions');
  ids.add(`blocked-${name}@example.net`); // the suppression routes take the address as their ID
  await as({ domain_id: created.body.id, local_part: 'support' }, '/v1/inbound/routes');
  await as(
    {
      from,
      to: [`someone-${name}@example.net`],
      subject: 'Later',
      text: 'later',
      send_at: new Date(Date.now() + 86_400_000).toISOString(),
    },
    '/v1/emails',
  );
  await as({ from, to: [`now-${name}@example.net`], subject: 'Now', text: 'now' }, '/v1/emails');
  if (withSession) {
    await as({ name: 'second', scopes: ['emails:send'] }, '/v1/dashboard/api-keys', 'POST', session);
    await as(
      { email: `analyst-${name}@example.test`, role: 'analyst' },
      '/v1/dashboard/organization/members',
      'POST',
      session,
    );
  }
  await gatherIds(world, withSession ? { key, session } : { key }, ids);
}

/** Walks every parameterless GET route with the tenant's key and session, keeping the IDs shown. */
async function gatherIds(world: World, credentials: { key: string; session?: string }, ids: Set<string>) {
  const gets = Object.entries(world.document.paths).flatMap(([path, operations]) => {
    const op = operations.get;
    if (!op) return [];
    const scheme = Object.keys(op.security[0] ?? {})[0];
    const credential =
      scheme === 'session' ? credentials.session : scheme === 'apiKey' ? credentials.key : undefined;
    return credential === undefined ? [] : [{ path, credential }];
  });
  for (const { path, credential } of gets.filter((g) => !g.path.includes('{'))) {
    const res = await world.ph.request('GET', path, { key: credential });
    if (res.status === 200) harvest(res.body, ids);
  }
  // One level down: the lists under a resource (deliveries of a webhook, contacts of an audience).
  for (const { path, credential } of gets.filter((g) => /^[^{]*\{[^}]+\}[^{]*$/.test(g.path))) {
    for (const id of [...ids].filter((i) => /^(wh|aud|tpl|bc)_/.test(i))) {
      const res = await world.ph.request('GET', path.replace(/\{[^}]+\}/, id), { key: credential });
      if (res.status === 200) harvest(res.body, ids);
    }
  }
}

/** Makes the tenant's key, test key and session work again if a fuzzed request revoked them. */
export async function renewCredentials(world: World, tenant: Tenant): Promise<void> {
  const { ph } = world;
  if ((await ph.request('GET', '/v1/domains', { key: tenant.key })).status === 401)
    tenant.key = await ph.createKey(tenant.projectId, ['full_access'], 'live');
  if ((await ph.request('GET', '/v1/domains', { key: tenant.testKey })).status === 401)
    tenant.testKey = await ph.createKey(tenant.projectId, ['full_access'], 'test');
  if ((await ph.request('GET', '/v1/auth/session', { key: tenant.session })).status === 401)
    tenant.session = await signIn(world, tenant.email);
}
