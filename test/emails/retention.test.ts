import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { count, email, rows, verifiedDomain } from './helpers.js';

const DAY = 86_400_000;

test('message retention drops the bodies of old messages, never of one still waiting to be sent', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const sent = await ph.request('POST', '/v1/emails', { body: email({ html: '<p>sent</p>' }) });
  const waiting = await ph.request('POST', '/v1/emails', { body: email({ html: '<p>waiting</p>' }) });
  const scheduled = await ph.request('POST', '/v1/emails', {
    body: email({ html: '<p>later</p>', send_at: new Date(Date.now() + 3 * DAY).toISOString() }),
  });
  for (const res of [sent, waiting, scheduled]) t.is(res.status, 202, res.text);
  // The first one went out (the engine is off in this test, so its job is finished by hand).
  await rows(ph, `update delivery_jobs set state = 'done' where message_id = ?`, sent.body.id);
  const purge = (cutoff: number) => ph.server.services.emails.store.purgeBodiesBefore(cutoff);

  t.is(await purge(Date.now() - 90 * DAY), 0, 'nothing is old enough yet');
  t.is(await count(ph, 'message_bodies'), 3);

  t.is(await purge(Date.now() + DAY), 1);
  const left = await rows(ph, 'select message_id from message_bodies order by message_id');
  t.deepEqual(left, [{ message_id: waiting.body.id }, { message_id: scheduled.body.id }]);
  // The message itself stays readable.
  const shown = await ph.request('GET', `/v1/emails/${sent.body.id}`);
  t.is(shown.status, 200);
  t.is(await purge(Date.now() + DAY), 0, 'a second pass finds nothing more');
});
