import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { admin, adminJson, eventually } from './helpers.js';

test('GET /v1/status measures the running components and reports an operational installation with no history', async (t) => {
  // Measured once at start and not again during the test, so the two reads see the same status.
  const ph = await startPosthorn(t, { status: { check_interval: '1h' } });
  const res = await ph.request('GET', '/v1/status', { key: null });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^application\/json/);
  t.truthy(res.headers.get('etag'));
  t.is(res.body.status, 'operational');
  t.is(res.body.summary, 'All systems operational');
  // Delivery and inbound SMTP are switched off in this config, so they are not reported.
  t.deepEqual(
    res.body.components.map((c: { id: string; status: string }) => `${c.id}:${c.status}`),
    ['api:operational', 'database:operational', 'webhooks:operational'],
  );
  t.deepEqual(res.body.incidents, []);
  t.deepEqual(res.body.history, { data: [], has_more: false });
  const again = await ph.request('GET', '/v1/status', {
    key: null,
    headers: { 'if-none-match': res.headers.get('etag') as string },
  });
  t.is(again.status, 304, 'an unchanged status is not sent again');
});

test('an incident opened, updated and resolved from the command line shows on the running server within seconds', async (t) => {
  const ph = await startPosthorn(t, { status: { check_interval: '100ms' } });
  const opened = adminJson(ph, [
    'incidents',
    'open',
    '--title',
    'Mail to Gmail is delayed',
    '--component',
    'delivery',
    '--component',
    'webhooks',
    '--impact',
    'partial_outage',
    '--message',
    'Gmail is deferring our mail; we are looking into it.',
  ]);
  t.regex(opened.id, /^inc_/);
  t.is(opened.state, 'investigating');
  t.deepEqual(opened.components, ['delivery', 'webhooks']);

  const open = await eventually(async () => {
    const res = await ph.request('GET', '/v1/status', { key: null });
    return res.body.incidents.length === 1 ? res.body : undefined;
  }, 'the incident on /v1/status');
  t.is(open.incidents[0].id, opened.id);
  t.is(open.incidents[0].impact, 'partial_outage');
  t.is(open.incidents[0].updates[0].message, 'Gmail is deferring our mail; we are looking into it.');
  const webhooks = open.components.find((c: { id: string }) => c.id === 'webhooks');
  t.is(webhooks.status, 'partial_outage', 'a component shows the impact its open incident declares');
  t.is(open.status, 'partial_outage');

  const updated = adminJson(ph, [
    'incidents',
    'update',
    opened.id,
    '--state',
    'identified',
    '--message',
    'A rate limit; backing off.',
  ]);
  t.is(updated.state, 'identified');
  t.is(updated.updates.length, 2);
  const resolved = adminJson(ph, ['incidents', 'resolve', opened.id, '--message', 'Mail flows again.']);
  t.is(resolved.state, 'resolved');
  t.truthy(resolved.resolved_at);

  const after = await eventually(async () => {
    const res = await ph.request('GET', '/v1/status', { key: null });
    return res.body.incidents.length === 0 && res.body.history.data.length === 1 ? res.body : undefined;
  }, 'the resolved incident in the history');
  t.is(
    after.components.find((c: { id: string }) => c.id === 'webhooks').status,
    'operational',
    'resolving hands the components back to the measurements',
  );
  t.deepEqual(
    after.history.data[0].updates.map((u: { state: string }) => u.state),
    ['resolved', 'identified', 'investigating'],
  );

  const list = admin(ph, ['incidents', 'list']);
  t.is(list.code, 0);
  t.regex(list.stdout, new RegExp(`${opened.id}\\s+incident\\s+resolved\\s+partial_outage`));
});

test('bad incident input is refused with a message naming what is wrong, and nothing is stored', async (t) => {
  const ph = await startPosthorn(t);
  const base = ['incidents', 'open', '--title', 'T', '--message', 'M'];
  const badComponent = admin(ph, [...base, '--component', 'smtp', '--impact', 'degraded']);
  t.not(badComponent.code, 0);
  t.regex(
    badComponent.stderr,
    /"smtp" is not a component; components: api, database, delivery, inbound, webhooks/,
  );
  const badImpact = admin(ph, [...base, '--component', 'api', '--impact', 'broken']);
  t.regex(badImpact.stderr, /impact: must be one of degraded, partial_outage, major_outage/);
  const missing = admin(ph, ['incidents', 'open', '--title', 'T', '--impact', 'degraded', '--message', 'M']);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /--component is required/);
  const unknown = admin(ph, ['incidents', 'resolve', 'inc_nope', '--message', 'x']);
  t.regex(unknown.stderr, /Incident inc_nope was not found/);
  const badState = admin(ph, ['incidents', 'update', 'inc_nope', '--state', 'resolved', '--message', 'x']);
  t.regex(badState.stderr, /state: must be one of investigating, identified, monitoring/);
  t.deepEqual(adminJson(ph, ['incidents', 'list']), { data: [] });
});

test('the history is paged newest first with limit and after', async (t) => {
  const ph = await startPosthorn(t);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const found = await ph.server.services.status.incidents.open({
      title: `Incident ${i}`,
      components: ['api'],
      impact: 'degraded',
      message: `number ${i}`,
    });
    ids.push(found.incident.id);
  }
  const first = await ph.request('GET', '/v1/status?limit=2', { key: null });
  t.deepEqual(
    first.body.history.data.map((i: { id: string }) => i.id),
    [ids[4], ids[3]],
  );
  t.true(first.body.history.has_more);
  const second = await ph.request('GET', `/v1/status?limit=2&after=${ids[3]}`, { key: null });
  t.deepEqual(
    second.body.history.data.map((i: { id: string }) => i.id),
    [ids[2], ids[1]],
  );
  const last = await ph.request('GET', `/v1/status?limit=2&after=${ids[1]}`, { key: null });
  t.deepEqual(
    last.body.history.data.map((i: { id: string }) => i.id),
    [ids[0]],
  );
  t.false(last.body.history.has_more);
  const bad = await ph.request('GET', '/v1/status?limit=0', { key: null });
  t.is(bad.status, 400);
});
