import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { count, email, rows, verifiedDomain } from '../emails/helpers.js';
import { createEndpoint } from '../webhooks/helpers.js';
import { eventually, startReceiver } from '../webhooks/receiver.js';
import { report } from './helpers.js';

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

test('a cancelled scheduled send stops counting: its recipients leave accepted and queued', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const scheduled = await ph.request('POST', '/v1/emails', {
    body: email({ to: ['a@example.com', 'b@example.com'], cc: ['c@example.com'], send_at: inAnHour() }),
  });
  t.is(scheduled.status, 202);
  // A send now, which stays queued (the delivery engine is off): it keeps counting.
  t.is((await ph.request('POST', '/v1/emails', { body: email({ to: ['d@example.com'] }) })).status, 202);
  const before = await report(ph, 1);
  t.like(before, { sent: 4 });
  t.like(before.daily[0], { accepted: 4, queued: 4 });

  t.is((await ph.request('DELETE', `/v1/emails/${scheduled.body.id}/schedule`)).status, 204);
  const after = await report(ph, 1);
  t.like(after, { sent: 1, delivered: 0, delivery_rate: 0 });
  t.like(after.daily[0], { accepted: 1, queued: 1 });
  t.deepEqual(
    after.providers.map((p: { provider: string; total: number; queued: number }) => [
      p.provider,
      p.total,
      p.queued,
    ]),
    [['unrouted', 1, 1]],
  );
  // The cancel is recorded once: cancelling again is a 404 and changes nothing.
  t.is((await ph.request('DELETE', `/v1/emails/${scheduled.body.id}/schedule`)).status, 404);
  t.like(await report(ph, 1), { sent: 1 });
});

test('the cancel event stays internal: an endpoint subscribed to every event never receives it', async (t) => {
  const ph = await startPosthorn(t, { webhooks: { allow_http: true, allow_private_targets: true } });
  await verifiedDomain(ph);
  const receiver = await startReceiver(t);
  const endpoint = await createEndpoint(ph, receiver.url, ['*']);
  // Nor can an endpoint subscribe to it by name.
  const named = await ph.request('POST', '/v1/webhooks', {
    body: { url: receiver.url, events: ['email.cancelled'] },
  });
  t.is(named.status, 400);

  const scheduled = await ph.request('POST', '/v1/emails', { body: email({ send_at: inAnHour() }) });
  t.is((await ph.request('DELETE', `/v1/emails/${scheduled.body.id}/schedule`)).status, 204);
  const [cancel] = await rows<{ id: string }>(
    ph,
    "select id from events where message_id = ? and type = 'email.cancelled'",
    scheduled.body.id,
  );
  t.truthy(cancel, 'the cancel is in the event log');
  // A later event: once it reached the endpoint, the dispatcher has read past the cancel.
  t.is((await ph.request('POST', '/v1/emails', { body: email() })).status, 202);
  const received = await receiver.waitFor(2);
  await eventually(
    async () =>
      (
        await rows<{ last_event_id: string }>(
          ph,
          "select last_event_id from event_cursors where consumer = 'webhooks'",
        )
      )
        .map((c) => c.last_event_id)
        .some((id) => id > (cancel?.id ?? '')) || undefined,
  );
  t.deepEqual(received.map((r) => JSON.parse(r.body).type).sort(), ['email.scheduled', 'email.sent']);
  t.is(await count(ph, 'webhook_messages', 'endpoint_id = ?', endpoint.id), 2);
  t.is(await count(ph, 'webhook_messages', "event_type = 'email.cancelled'"), 0);
});
