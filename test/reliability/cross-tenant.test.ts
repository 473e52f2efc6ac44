/**
 * Access control between tenants, generated from the OpenAPI document: every route that takes an
 * ID in its path is called with the IDs of another organization's project and of another project
 * of the same organization, with the caller's own valid credentials. Each answer must be a 404
 * (or a 400 for an ID of the wrong kind): never a success, and never a 403, 409 or 422 that would
 * tell the caller the resource exists. A positive control proves the check means something: for
 * each route, a path and body its owner gets a non-404 answer with is found first, and exactly
 * that request, made by the other tenant, must be a 404.
 */
import test from 'ava';
import fc from 'fast-check';
import { encodeSegment, type Op, operationsOf, type RawResponse, rawRequest } from './fuzz/openapi-fuzz.js';
import { type Schema, schemaValue } from './fuzz/schema-arbitrary.js';
import { makeSiblingProject, makeTenant, startWorld, type Tenant, type World } from './fuzz/world.js';

const schemeOf = (op: Op) => Object.keys(op.op.security[0] ?? {})[0];

function credentialOf(op: Op, tenant: Tenant): string | undefined {
  const scheme = schemeOf(op);
  return scheme === 'session' ? tenant.session : scheme === 'apiKey' ? tenant.key : undefined;
}

/** One ID of each kind (prefix), so a route meets every kind without every pair. */
function representatives(ids: Iterable<string>): string[] {
  const byKind = new Map<string, string[]>();
  for (const id of ids) {
    const kind = id.includes('@') ? '@' : id.slice(0, id.lastIndexOf('_'));
    const list = byKind.get(kind) ?? [];
    if (list.length < 1) list.push(id);
    byKind.set(kind, list);
  }
  return [...byKind.values()].flat();
}

/** Path-parameter fillings from one tenant's IDs: every ID at each parameter, a version as 1. */
function fillings(op: Op, ids: readonly string[]): string[] {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  let paths = [op.path];
  for (const name of names) {
    const values = name === 'version' ? ['1'] : ids;
    paths = paths.flatMap((p) => values.map((v) => p.replace(`{${name}}`, encodeSegment(v))));
  }
  return paths;
}

interface Body {
  readonly type?: string;
  readonly data?: string;
}

/** Bodies to try on a route: nothing or `{}`, then samples of its documented schema. */
function bodiesOf(op: Op): Body[] {
  const content = op.op.requestBody?.content;
  if (!content) return [{}];
  const [type, media] = Object.entries(content)[0] ?? [];
  if (type === 'text/csv') return [{ type, data: 'email\nreader@example.net\n' }];
  if (type !== 'application/json' || !media) return [{ type, data: '' }];
  const samples = fc.sample(schemaValue(media.schema as Schema), { numRuns: 12, seed: 30 });
  return [{ type, data: '{}' }, ...samples.map((s) => ({ type, data: JSON.stringify(s) }))];
}

async function call(
  world: World,
  op: Op,
  path: string,
  credential: string | undefined,
  body: Body,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const h: Record<string, string> = { ...headers };
  if (credential) h.authorization = `Bearer ${credential}`;
  if (body.type) h['content-type'] = body.type;
  return rawRequest(world.ph.url, op.method, path, h, body.data);
}

const telling = (status: number) => status < 400 || status === 403 || status === 409 || status === 422;

test("every route that takes an ID answers 404 to another organization's and another project's IDs", async (t) => {
  t.timeout(600_000);
  const world = await startWorld(t);
  const alpha = await makeTenant(world, 'alpha');
  const beta = await makeTenant(world, 'beta');
  const sibling = await makeSiblingProject(world, alpha, 'alpha-two');
  const routes = operationsOf(world.document).filter(
    (op) => op.path.includes('{') && credentialOf(op, alpha),
  );
  t.true(routes.length >= 40, `${routes.length} ID-taking routes with credentials`);
  const leaks: string[] = [];
  const covered = new Set<string>();
  let attempts = 0;
  const targets: [string, Tenant][] = [
    ['another organization', beta],
    ['another project of the same organization', sibling],
  ];
  const attack = async (
    op: Op,
    path: string,
    body: Body,
    label: string,
    headers: Record<string, string> = {},
  ) => {
    const res = await call(world, op, path, credentialOf(op, alpha), body, headers);
    attempts += 1;
    if (telling(res.status))
      leaks.push(`${op.method} ${path} (${label}) → ${res.status} ${res.text.slice(0, 160)}`);
    return res;
  };
  // Reads and changes first, deletions last: a deletion's control removes what it found.
  const order = (op: Op) => (op.method === 'DELETE' ? 1 : 0);
  for (const op of [...routes].sort((a, b) => order(a) - order(b))) {
    const bodies = bodiesOf(op);
    for (const [label, owner] of targets) {
      // The sibling project shares its organization with the caller: on session routes (the
      // organization's own records) it is not another tenant.
      if (owner === sibling && schemeOf(op) === 'session') continue;
      const paths = fillings(op, representatives(owner.ids));
      // The sweep: every kind of the other tenant's IDs, with the simplest body.
      for (const path of paths) await attack(op, path, bodies[0] as Body, label);
      // The control: a request the owner gets an answer to, repeated by the caller.
      search: for (const body of bodies) {
        for (const path of paths) {
          if (op.method === 'DELETE') {
            const res = await attack(op, path, body, `${label}, before its owner`);
            if (res.status !== 404) continue;
          }
          const own = await call(world, op, path, credentialOf(op, owner), body);
          if (own.status === 404 || own.status === 400 || own.status === 401 || own.status === 415) continue;
          covered.add(`${op.method} ${op.path}`);
          if (op.method !== 'DELETE') {
            const res = await attack(op, path, body, `${label}, after its owner got ${own.status}`);
            if (res.status !== 404)
              leaks.push(
                `${op.method} ${path} (${label}): ${res.status}, not 404, where its owner got ${own.status}`,
              );
          }
          break search;
        }
      }
    }
    // A session naming another organization's project in the project header.
    if (schemeOf(op) === 'session') {
      for (const path of fillings(op, representatives(beta.ids)).slice(0, 4))
        await attack(op, path, bodies[0] as Body, 'session selecting another organization’s project', {
          'X-Posthorn-Project-ID': beta.projectId,
        });
    }
  }
  const uncovered = routes.map((op) => `${op.method} ${op.path}`).filter((r) => !covered.has(r));
  t.log(
    `cross-tenant: routes ${routes.length}, attempts ${attempts}, leaks ${leaks.length}, routes with a positive control ${covered.size}`,
  );
  t.log(`routes without a positive control (no seeded resource of their kind): ${uncovered.join('; ')}`);
  t.deepEqual(leaks, []);
  t.true(
    covered.size >= Math.floor(routes.length * 0.6),
    `positive controls on ${covered.size} of ${routes.length} routes`,
  );
});

test('IDs of another project in a request body are refused like unknown ones', async (t) => {
  const world = await startWorld(t);
  const alpha = await makeTenant(world, 'alpha');
  const beta = await makeTenant(world, 'beta');
  const ofKind = (tenant: Tenant, prefix: string) => {
    const id = [...tenant.ids].find((i) => i.startsWith(prefix));
    if (!id) throw new Error(`${tenant.name} has no ${prefix} ID`);
    return id;
  };
  const route = await world.ph.request('POST', '/v1/inbound/routes', {
    key: alpha.key,
    body: { domain_id: ofKind(beta, 'dom_'), local_part: 'x' },
  });
  t.is(route.status, 404, route.text);
  const broadcast = await world.ph.request('POST', '/v1/broadcasts', {
    key: alpha.key,
    body: {
      audience_id: ofKind(beta, 'aud_'),
      from: `A <a@${alpha.domain}>`,
      subject: 's',
      html: '<p>h</p>',
    },
  });
  t.is(broadcast.status, 404, broadcast.text);
  const templated = await world.ph.request('POST', '/v1/emails', {
    key: alpha.key,
    body: {
      from: `A <a@${alpha.domain}>`,
      to: ['x@example.net'],
      template: ofKind(beta, 'tpl_'),
      variables: { name: 'x' },
    },
  });
  t.true([400, 404, 422].includes(templated.status), templated.text);
  t.notRegex(templated.text, /Hello/);
});
