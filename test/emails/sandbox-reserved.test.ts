/**
 * A project in the sandbox sends only from the shared sandbox sender, and only to its
 * organization's members; a `ph_test_` key may also reach the reserved test recipients
 * (`bounce@`, `complaint@`, `delay@` at `sandbox.test_domain`), whose mail never leaves the box.
 */
import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { email, rows, SANDBOX, sleep } from './helpers.js';

const RESERVED = ['bounce@posthorn.test', 'complaint@posthorn.test', 'delay@posthorn.test'];

test('in the sandbox a ph_test_ key sends from the sandbox sender to the reserved test recipients; a live key still reaches members only', async (t) => {
  const ph = await startPosthorn(t);
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  const fromSandbox = (overrides: Record<string, unknown>, key?: string) =>
    ph.request('POST', '/v1/emails', {
      ...(key ? { key } : {}),
      body: email({ from: SANDBOX, ...overrides }),
    });

  const reserved = await fromSandbox({ to: RESERVED, cc: ['owner@example.test'] }, testKey);
  t.is(reserved.status, 202, reserved.text);
  t.is((await fromSandbox({ to: ['Tester <BOUNCE@Posthorn.Test>'] }, testKey)).status, 202);

  // Only the reserved addresses: another one at the test domain, or anyone else, is refused.
  for (const outsider of ['ok@posthorn.test', 'stranger@example.com']) {
    const refused = await fromSandbox({ to: ['bounce@posthorn.test', outsider] }, testKey);
    t.is(refused.status, 403, outsider);
    t.is(
      refused.body.error,
      'The shared sandbox sender sandbox@posthorn.test may send only to members of your organization and, ' +
        'with a ph_test_ key, the test recipients bounce@posthorn.test, complaint@posthorn.test and delay@posthorn.test; ' +
        `${outsider} is not one. Verify a domain to send to anyone.`,
    );
  }

  const live = await fromSandbox({ to: ['bounce@posthorn.test'] });
  t.is(live.status, 403);
  t.is(
    live.body.error,
    'The shared sandbox sender sandbox@posthorn.test may send only to members of your organization; ' +
      'bounce@posthorn.test is not one. Send to it with a ph_test_ key, or verify a domain to send to anyone.',
  );
  t.is((await fromSandbox({ to: ['owner@example.test'] })).status, 202, 'a live key still reaches members');
  t.deepEqual(rows(ph, 'select mode, count(*) as n from messages group by mode order by mode'), [
    { mode: 'live', n: 1 },
    { mode: 'test', n: 2 },
  ]);
});

test('a sandbox project’s test sends to the reserved recipients are answered by the sink as the real ones would be', async (t) => {
  const ph = await startPosthorn(t, { delivery: { enabled: true, poll_interval: '200ms' } });
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  const sent = await ph.request('POST', '/v1/emails', {
    key: testKey,
    body: email({
      from: SANDBOX,
      to: ['bounce@posthorn.test', 'complaint@posthorn.test', 'owner@example.test'],
    }),
  });
  t.is(sent.status, 202, sent.text);
  let shown = (await ph.request('GET', `/v1/emails/${sent.body.id}`, { key: testKey })).body;
  for (
    const deadline = Date.now() + 15_000;
    shown.status !== 'partially_delivered' && Date.now() < deadline;
  ) {
    await sleep(100);
    shown = (await ph.request('GET', `/v1/emails/${sent.body.id}`, { key: testKey })).body;
  }
  t.deepEqual(shown.recipients, [
    { email: 'bounce@posthorn.test', type: 'to', status: 'bounced' },
    { email: 'complaint@posthorn.test', type: 'to', status: 'complained' },
    { email: 'owner@example.test', type: 'to', status: 'delivered' },
  ]);
  t.deepEqual(
    rows(ph, 'select distinct mx_host from delivery_attempts where message_id = ?', sent.body.id),
    [{ mx_host: 'sandbox.posthorn.invalid' }],
    'answered by the sink, not an MX',
  );
});

test('a scheduled test send of a sandbox project to a reserved recipient is released when its time comes', async (t) => {
  const ph = await startPosthorn(t);
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  // Due 4 s ahead: a loaded host may take over a second for the request itself.
  const sendAt = Date.now() + 4000;
  const sent = await ph.request('POST', '/v1/emails', {
    key: testKey,
    body: email({ from: SANDBOX, to: ['delay@posthorn.test'], send_at: new Date(sendAt).toISOString() }),
  });
  t.is(sent.body.status, 'scheduled', sent.text);
  let status = 'scheduled';
  while (status === 'scheduled' && Date.now() < sendAt + 5000) {
    await sleep(100);
    status = (await ph.request('GET', `/v1/emails/${sent.body.id}`, { key: testKey })).body.status;
  }
  t.is(status, 'queued', 'released, not failed by the sender check');
});
