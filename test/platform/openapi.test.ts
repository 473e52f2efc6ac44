import { Validator } from '@seriousme/openapi-schema-validator';
import test from 'ava';
import { startPosthorn } from '../helpers/server.js';

test('the served OpenAPI document is a valid OpenAPI 3.1 description of every route', async (t) => {
  const ph = await startPosthorn(t);
  const res = await ph.request('GET', '/openapi.json', { key: null });
  t.is(res.status, 200);
  const validator = new Validator();
  const result = await validator.validate(res.body);
  t.true(result.valid, JSON.stringify(result.errors, null, 2));
  t.is(res.body.openapi, '3.1.0');
  t.truthy(res.body.paths['/health']?.get);
  t.is(res.body.components.securitySchemes.apiKey.scheme, 'bearer');
});
