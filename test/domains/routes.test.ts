import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { query } from '../helpers/sql.js';
import { createDomain, eventsOf } from './env.js';

test('GET /v1/domains lists the project’s domains newest first with paging', async (t) => {
  const ph = await startPosthorn(t);
  for (const name of ['a.example.com', 'b.example.com', 'c.example.com']) await createDomain(ph, name);
  const page = await ph.request('GET', '/v1/domains?limit=2');
  t.is(page.status, 200);
  t.deepEqual(
    page.body.data.map((d: { name: string }) => d.name),
    ['c.example.com', 'b.example.com'],
  );
  t.true(page.body.has_more);
  const rest = await ph.request('GET', `/v1/domains?limit=2&after=${page.body.data[1].id}`);
  t.deepEqual(
    rest.body.data.map((d: { name: string }) => d.name),
    ['a.example.com'],
  );
  t.false(rest.body.has_more);
  t.true(rest.body.data[0].records.length > 0);
});

test('GET, DELETE and verify answer 404 for an unknown domain', async (t) => {
  const ph = await startPosthorn(t);
  for (const [method, path] of [
    ['GET', '/v1/domains/dom_nope'],
    ['DELETE', '/v1/domains/dom_nope'],
    ['POST', '/v1/domains/dom_nope/verify'],
  ] as const) {
    const res = await ph.request(method, path);
    t.is(res.status, 404, `${method} ${path}`);
    t.is(res.body.error, 'Domain dom_nope was not found.');
  }
});

test('DELETE removes the domain and its keys with 204 and appends domain.deleted', async (t) => {
  const ph = await startPosthorn(t);
  const domain = await createDomain(ph, 'example.com');
  t.truthy(await ph.server.services.domains.signingKeys(ph.owner.projectId, 'example.com'));
  const res = await ph.request('DELETE', `/v1/domains/${domain.id}`);
  t.is(res.status, 204);
  t.is((await ph.request('GET', `/v1/domains/${domain.id}`)).status, 404);
  t.is((await ph.request('DELETE', `/v1/domains/${domain.id}`)).status, 404);
  t.is(await ph.server.services.domains.signingKeys(ph.owner.projectId, 'example.com'), undefined);
  const [keys] = await query<{ n: number }>(
    ph.server.kernel.store,
    'select count(*) as n from domain_dkim_keys',
  );
  t.is(Number(keys?.n), 0);
  t.deepEqual(
    (await eventsOf(ph, ph.owner.projectId)).map((e) => e.type),
    ['domain.created', 'domain.deleted'],
  );
  t.is((await eventsOf(ph, ph.owner.projectId))[1]?.data.id, domain.id);
});

test('a project cannot see, verify or delete another project’s domain', async (t) => {
  const ph = await startPosthorn(t);
  const other = await ph.bootstrap();
  const domain = await createDomain(ph, 'example.com');
  t.is((await ph.request('GET', `/v1/domains/${domain.id}`, { key: other.apiKey })).status, 404);
  t.is((await ph.request('POST', `/v1/domains/${domain.id}/verify`, { key: other.apiKey })).status, 404);
  t.is((await ph.request('DELETE', `/v1/domains/${domain.id}`, { key: other.apiKey })).status, 404);
  t.deepEqual((await ph.request('GET', '/v1/domains', { key: other.apiKey })).body, {
    data: [],
    has_more: false,
  });
  t.is(await ph.server.services.domains.signingKeys(other.projectId, 'example.com'), undefined);
  t.is((await ph.request('GET', `/v1/domains/${domain.id}`)).status, 200);
});

test('domain routes enforce domains:read and domains:write', async (t) => {
  const ph = await startPosthorn(t);
  const domain = await createDomain(ph, 'example.com');
  const reader = await ph.createKey(ph.owner.projectId, ['domains:read']);
  const unrelated = await ph.createKey(ph.owner.projectId, ['suppressions:write']);
  t.is((await ph.request('GET', '/v1/domains', { key: reader })).status, 200);
  t.is((await ph.request('GET', `/v1/domains/${domain.id}`, { key: reader })).status, 200);
  for (const [method, path, body] of [
    ['POST', '/v1/domains', { name: 'x.example.com' }],
    ['POST', `/v1/domains/${domain.id}/verify`, undefined],
    ['DELETE', `/v1/domains/${domain.id}`, undefined],
  ] as const) {
    const res = await ph.request(method, path, { key: reader, ...(body ? { body } : {}) });
    t.is(res.status, 403, `${method} ${path}`);
    t.regex(res.body.error, /domains:write/);
  }
  const list = await ph.request('GET', '/v1/domains', { key: unrelated });
  t.is(list.status, 403);
  t.regex(list.body.error, /domains:read/);
});
