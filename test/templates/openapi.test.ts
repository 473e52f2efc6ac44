import test from 'ava';
import { startPosthorn } from '../helpers/server.js';

test('the OpenAPI document has every domain, suppression and template route with its scope', async (t) => {
  const ph = await startPosthorn(t);
  const doc = (await ph.request('GET', '/openapi.json', { key: null })).body;
  const expected: Array<[string, string, string]> = [
    ['/v1/domains', 'post', 'domains:write'],
    ['/v1/domains', 'get', 'domains:read'],
    ['/v1/domains/{id}', 'get', 'domains:read'],
    ['/v1/domains/{id}', 'delete', 'domains:write'],
    ['/v1/domains/{id}/verify', 'post', 'domains:write'],
    ['/v1/suppressions', 'post', 'suppressions:write'],
    ['/v1/suppressions', 'get', 'suppressions:read'],
    ['/v1/suppressions/{email}', 'get', 'suppressions:read'],
    ['/v1/suppressions/{email}', 'delete', 'suppressions:write'],
    ['/v1/templates', 'get', 'templates:read'],
    ['/v1/templates', 'post', 'templates:write'],
    ['/v1/templates/{id}', 'get', 'templates:read'],
    ['/v1/templates/{id}', 'put', 'templates:write'],
    ['/v1/templates/{id}', 'delete', 'templates:write'],
    ['/v1/templates/{id}/versions', 'get', 'templates:read'],
    ['/v1/templates/{id}/check', 'post', 'templates:read'],
    ['/v1/templates/{id}/publish', 'post', 'templates:write'],
    ['/v1/templates/{id}/rollback/{version}', 'post', 'templates:write'],
  ];
  for (const [path, method, scope] of expected) {
    const op = doc.paths[path]?.[method];
    t.truthy(op, `${method.toUpperCase()} ${path}`);
    t.is(op?.['x-posthorn-scope'], scope, `${method.toUpperCase()} ${path}`);
    t.truthy(op?.responses?.['403'], `${method.toUpperCase()} ${path} documents 403`);
  }
  t.truthy(
    doc.paths['/v1/templates/{id}/check'].post.responses['200'].content['application/json'].schema.properties
      .issues,
  );
  t.deepEqual(
    doc.paths['/v1/templates/{id}/rollback/{version}'].post.parameters.map((p: { name: string }) => p.name),
    ['id', 'version'],
  );
});
