import test from 'ava';
import { startPosthorn } from '../helpers/server.js';

test('health is 200 with api, database and queue operational', async (t) => {
  const ph = await startPosthorn(t);
  const res = await ph.request('GET', '/health', { key: null });
  t.is(res.status, 200);
  t.is(res.body.status, 'operational');
  for (const component of ['api', 'database', 'queue'])
    t.is(res.body.components[component]?.status, 'operational');
});

test('health is 503 naming the database when the database is unavailable', async (t) => {
  const ph = await startPosthorn(t);
  ph.server.kernel.store.sqlite.close();
  const res = await ph.request('GET', '/health', { key: null });
  t.is(res.status, 503);
  t.is(res.body.status, 'unavailable');
  t.is(res.body.components.database.status, 'unavailable');
  t.is(res.body.components.api.status, 'operational');
});
