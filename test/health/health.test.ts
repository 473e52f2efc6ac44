import test from 'ava';
import { cutOff } from '../helpers/postgres.js';
import { startPosthorn } from '../helpers/server.js';

test('health is 200 with api, database and queue operational', async (t) => {
  const ph = await startPosthorn(t);
  const res = await ph.request('GET', '/health', { key: null });
  t.is(res.status, 200);
  t.is(res.body.status, 'ok');
  for (const component of ['api', 'database', 'queue'])
    t.is(res.body.components[component]?.status, 'operational');
});

test('health is 503 naming the database when the database is unavailable', async (t) => {
  const ph = await startPosthorn(t);
  if (ph.server.kernel.store.engine === 'postgresql') t.teardown(await cutOff(ph.config.storage.url));
  else ph.server.kernel.store.sqlite.close();
  const res = await ph.request('GET', '/health', { key: null });
  t.is(res.status, 503);
  t.is(res.body.status, 'unavailable');
  t.is(res.body.components.database.status, 'unavailable');
  t.is(res.body.components.api.status, 'operational');
});

test('the OpenAPI document describes the top-level status as ok | degraded | unavailable', async (t) => {
  const ph = await startPosthorn(t);
  const doc = (await ph.request('GET', '/openapi.json', { key: null })).body;
  for (const code of ['200', '503']) {
    const schema = doc.paths['/health'].get.responses[code].content['application/json'].schema;
    t.deepEqual(schema.properties.status.enum, ['ok', 'degraded', 'unavailable'], code);
    t.deepEqual(
      schema.properties.components.additionalProperties.properties.status.enum,
      ['operational', 'degraded', 'unavailable'],
      code,
    );
  }
});
