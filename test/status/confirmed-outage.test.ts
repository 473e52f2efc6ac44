import test from 'ava';
import type { ProbeResult } from '../../src/health/registry.js';
import { startPosthorn } from '../helpers/server.js';

test('one failed measurement neither shows an outage nor opens an incident, two in a row do, and recovery shows at once', async (t) => {
  // Measured only when the test asks (settle); incidents open and resolve on the first confirmed state.
  const ph = await startPosthorn(t, {
    status: { check_interval: '1h', auto_incident_after: '0s', auto_resolve_after: '0s' },
  });
  const { health, status } = ph.server.services;
  await status.settle(); // the measurement made at boot is over before the probe is replaced
  let down = false;
  health.register(
    'database',
    (): ProbeResult =>
      down ? { status: 'unavailable', detail: 'probe timed out' } : { status: 'operational' },
  );
  const read = async () => (await ph.request('GET', '/v1/status', { key: null })).body;
  const database = (body: { components: { id: string; status: string }[] }) =>
    body.components.find((c) => c.id === 'database')?.status;

  down = true;
  await status.settle();
  let body = await read();
  t.is(database(body), 'operational', 'a single failed measurement is not shown');
  t.is(body.status, 'operational');
  t.deepEqual(body.incidents, [], 'nor does it open an incident');

  down = false;
  await status.settle();
  down = true;
  await status.settle();
  body = await read();
  t.is(database(body), 'operational', 'failures separated by a success are not confirmed');
  t.deepEqual(body.incidents, []);

  await status.settle();
  body = await read();
  t.is(database(body), 'major_outage', 'two failed measurements in a row are an outage');
  t.is(body.status, 'major_outage');
  t.is(body.incidents.length, 1);
  t.true(body.incidents[0].automatic);
  t.deepEqual(body.incidents[0].components, ['database']);
  t.is(body.incidents[0].impact, 'major_outage');

  down = false;
  await status.settle();
  body = await read();
  t.is(database(body), 'operational', 'one good measurement shows the recovery');
  t.deepEqual(body.incidents, []);
  t.is(body.history.data[0].state, 'resolved');
});
