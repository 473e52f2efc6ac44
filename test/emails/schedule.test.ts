import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { failInserts, stopFailingInserts } from '../helpers/sql.js';
import { count, email, rows, sleep, verifiedDomain } from './helpers.js';

test('a send with send_at is scheduled, then released to the queue by the scheduler within 2 s', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  // Due 4 s ahead: under a loaded host the request itself can take over a second, and a send_at
  // already past when it is checked is refused.
  const sendAt = Date.now() + 4000;
  const res = await ph.request('POST', '/v1/emails', {
    body: email({ to: ['a@example.com', 'b@other.test'], send_at: new Date(sendAt).toISOString() }),
  });
  t.is(res.status, 202);
  t.is(res.body.status, 'scheduled');
  const jobs = await rows<{ state: string; due_at: number }>(
    ph,
    'select state, due_at from delivery_jobs where message_id = ?',
    res.body.id,
  );
  t.deepEqual(
    jobs.map((j) => [j.state, j.due_at]),
    [
      ['scheduled', sendAt],
      ['scheduled', sendAt],
    ],
  );
  t.deepEqual(
    (await ph.server.services.events.forMessage(res.body.id)).map((e) => e.type),
    ['email.scheduled'],
  );

  // The release is timed by the product's own record of it (email.sent is written at the release
  // time), not by when this loop sees it: on a loaded host each poll can take a second itself. The
  // loop's budget only guards against a hang.
  let status = 'scheduled';
  while (status === 'scheduled' && Date.now() < sendAt + 30_000) {
    await sleep(100);
    status = (await ph.request('GET', `/v1/emails/${res.body.id}`)).body.status;
  }
  t.is(status, 'queued');
  t.deepEqual(await rows(ph, 'select state from delivery_jobs where message_id = ?', res.body.id), [
    { state: 'queued' },
    { state: 'queued' },
  ]);
  const events = await ph.server.services.events.forMessage(res.body.id);
  t.deepEqual(
    events.map((e) => e.type),
    ['email.scheduled', 'email.sent'],
  );
  const releasedAt = Date.parse(events[1]?.created_at ?? '');
  t.true(releasedAt >= sendAt, 'not released before send_at');
  t.true(releasedAt < sendAt + 2000, `released within 2 s of send_at (${releasedAt - sendAt} ms)`);
  t.deepEqual(events[1]?.data.to, ['a@example.com', 'b@other.test']);
  // data.created_at is the message's, as GET shows it; the event's own time is its created_at (old: the release time).
  t.is(events[1]?.data.created_at, res.body.created_at);
});

test('DELETE /v1/emails/{id}/schedule cancels a scheduled send (204), after which it is 404', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const res = await ph.request('POST', '/v1/emails', {
    body: email({ send_at: new Date(Date.now() + 3_600_000).toISOString() }),
  });
  const cancel = await ph.request('DELETE', `/v1/emails/${res.body.id}/schedule`);
  t.is(cancel.status, 204);
  t.is(cancel.text, '');
  t.is((await ph.request('GET', `/v1/emails/${res.body.id}`)).body.status, 'cancelled');
  t.deepEqual(await rows(ph, 'select state from delivery_jobs where message_id = ?', res.body.id), [
    { state: 'cancelled' },
  ]);
  t.is((await ph.request('DELETE', `/v1/emails/${res.body.id}/schedule`)).status, 404);
});

test('cancelling a scheduled send cancels its recipients in the same transaction; GET /v1/emails/{id} shows them', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const res = await ph.request('POST', '/v1/emails', {
    body: email({
      to: ['Ann <ann@example.com>'],
      cc: ['cy@other.test'],
      bcc: ['dee@example.com'],
      send_at: new Date(Date.now() + 3_600_000).toISOString(),
    }),
  });
  const shown = async () => (await ph.request('GET', `/v1/emails/${res.body.id}`)).body;
  t.deepEqual(await shown(), {
    ...res.body,
    recipients: [
      { email: 'ann@example.com', type: 'to', status: 'queued' },
      { email: 'cy@other.test', type: 'cc', status: 'queued' },
      { email: 'dee@example.com', type: 'bcc', status: 'queued' },
    ],
  });

  // A cancel whose last write fails leaves everything as it was: recipients included.
  await failInserts(ph.server.kernel.store, {
    name: 'refuse_cancel',
    table: 'delivery_jobs',
    event: 'update',
    when: "new.state = 'cancelled'",
    message: 'refused',
  });
  t.is((await ph.request('DELETE', `/v1/emails/${res.body.id}/schedule`)).status, 500);
  t.is((await shown()).status, 'scheduled');
  t.is(await count(ph, 'message_recipients', "status = 'queued'"), 3);
  await stopFailingInserts(ph.server.kernel.store, 'refuse_cancel', 'delivery_jobs');

  t.is((await ph.request('DELETE', `/v1/emails/${res.body.id}/schedule`)).status, 204);
  t.deepEqual(await shown(), {
    ...res.body,
    status: 'cancelled',
    recipients: [
      { email: 'ann@example.com', type: 'to', status: 'cancelled' },
      { email: 'cy@other.test', type: 'cc', status: 'cancelled' },
      { email: 'dee@example.com', type: 'bcc', status: 'cancelled' },
    ],
  });
});

test('cancelling is 404 for a message that is not scheduled, absent, or another project’s', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const now = await ph.request('POST', '/v1/emails', { body: email() });
  const notScheduled = await ph.request('DELETE', `/v1/emails/${now.body.id}/schedule`);
  t.is(notScheduled.status, 404);
  t.regex(notScheduled.body.error, /not found/);
  t.is((await ph.request('DELETE', '/v1/emails/msg_01JD3Q8Z9V6W1R2T3Y4U5I6O7P/schedule')).status, 404);
  const later = await ph.request('POST', '/v1/emails', {
    body: email({ send_at: new Date(Date.now() + 3_600_000).toISOString() }),
  });
  const other = await ph.bootstrap();
  t.is(
    (await ph.request('DELETE', `/v1/emails/${later.body.id}/schedule`, { key: other.apiKey })).status,
    404,
  );
  t.is((await ph.request('GET', `/v1/emails/${later.body.id}`)).body.status, 'scheduled');
});

test('a cancelled send is never released', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  // Due 5 s ahead, so the cancel lands before the due time even on a loaded host; then wait past it.
  const sendAt = Date.now() + 5000;
  const res = await ph.request('POST', '/v1/emails', {
    body: email({ send_at: new Date(sendAt).toISOString() }),
  });
  t.is((await ph.request('DELETE', `/v1/emails/${res.body.id}/schedule`)).status, 204);
  await sleep(sendAt + 1500 - Date.now());
  t.is((await ph.request('GET', `/v1/emails/${res.body.id}`)).body.status, 'cancelled');
  // No email.sent: the log has its acceptance and its cancel (an internal event) only.
  t.deepEqual(
    (await ph.server.services.events.forMessage(res.body.id)).map((e) => e.type),
    ['email.scheduled', 'email.cancelled'],
  );
});
