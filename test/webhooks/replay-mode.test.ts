/**
 * Replay follows the fan-out's rule of modes: an endpoint receives the events of its own mode's
 * messages only. Deliveries made before endpoints had a mode (migration 0016) may cross modes;
 * such rows are inserted here as they stand in an upgraded database.
 */
import test from 'ava';
import { email, verifiedDomain } from '../emails/helpers.js';
import { newId } from '../../src/platform/ids.js';
import { startPosthorn, type Posthorn } from '../helpers/server.js';
import { query } from '../helpers/sql.js';
import { createEndpoint, deliveries } from './helpers.js';
import { startReceiver } from './receiver.js';

const open = { allow_http: true, allow_private_targets: true };

async function send(ph: Posthorn, key: string): Promise<string> {
  const res = await ph.request('POST', '/v1/emails', { key, body: email() });
  if (res.status !== 202) throw new Error(`send: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A delivery of `type` about `emailId` made to `endpointId` before 0016; its ID and body. */
async function pastDelivery(
  ph: Posthorn,
  endpointId: string,
  type: string,
  emailId: string | null,
  outcome: { state: 'succeeded' | 'failed'; error?: string } = { state: 'succeeded' },
): Promise<{ id: string; body: string }> {
  const { store } = ph.server.kernel;
  const now = Date.now();
  const eventId = newId('evt', now);
  const body = JSON.stringify({
    id: eventId,
    type,
    created_at: '2025-01-01T00:00:00.000Z',
    data: emailId === null ? { name: 'acme.test' } : { email_id: emailId, subject: 'Hi' },
  });
  const messageId = newId('whm', now);
  const id = newId('whd', now);
  await query(
    store,
    `insert into webhook_messages (id, endpoint_id, project_id, event_id, event_type, body, created_at)
     values (?, ?, ?, ?, ?, ?, ?)`,
    messageId,
    endpointId,
    ph.owner.projectId,
    eventId,
    type,
    body,
    now,
  );
  await query(
    store,
    `insert into webhook_attempts (id, message_id, endpoint_id, attempt, trigger, state, due_at, requested_at,
       error, created_at)
     values (?, ?, ?, 1, 'event', ?, ?, ?, ?, ?)`,
    id,
    messageId,
    endpointId,
    outcome.state,
    now,
    outcome.error ? null : now,
    outcome.error ?? null,
    now,
  );
  return { id, body };
}

test('a delivery about a message of the other mode than the endpoint’s is refused for replay (409); others replay', async (t) => {
  const ph = await startPosthorn(t, { webhooks: open });
  await verifiedDomain(ph);
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  const liveKey = ph.owner.apiKey;
  const liveHook = await startReceiver(t);
  const testHook = await startReceiver(t);
  // Subscribed to nothing these sends cause: only replays reach the receivers.
  const live = await createEndpoint(ph, liveHook.url, ['contact.created'], liveKey);
  const sandbox = await createEndpoint(ph, testHook.url, ['contact.created'], testKey);
  const liveMessage = await send(ph, liveKey);
  const testMessage = await send(ph, testKey);

  const notSent =
    'Not sent: queued before endpoints had a mode, for an event about a test message; a live endpoint receives the events of live messages only.';
  const refused = [
    {
      key: liveKey,
      endpoint: live.id,
      ...(await pastDelivery(ph, live.id, 'email.bounced', testMessage, { state: 'failed', error: notSent })),
      about: 'test',
      of: 'live',
    },
    {
      key: liveKey,
      endpoint: live.id,
      ...(await pastDelivery(ph, live.id, 'email.delivered', testMessage)),
      about: 'test',
      of: 'live',
    },
    {
      key: testKey,
      endpoint: sandbox.id,
      ...(await pastDelivery(ph, sandbox.id, 'email.sent', liveMessage)),
      about: 'live',
      of: 'test',
    },
    // A message the emails capability does not know counts as live, as in the fan-out.
    {
      key: testKey,
      endpoint: sandbox.id,
      ...(await pastDelivery(ph, sandbox.id, 'email.opened', newId('msg'))),
      about: 'live',
      of: 'test',
    },
  ];
  for (const delivery of refused) {
    const res = await ph.request(
      'POST',
      `/v1/webhooks/${delivery.endpoint}/deliveries/${delivery.id}/replay`,
      {
        key: delivery.key,
      },
    );
    t.is(res.status, 409, res.text);
    t.deepEqual(res.body, {
      error: `Delivery ${delivery.id} is about a ${delivery.about} message; a ${delivery.of} endpoint receives the events of ${delivery.of} messages only, so it cannot be replayed here.`,
    });
  }

  const allowed = [
    {
      key: liveKey,
      endpoint: live.id,
      hook: liveHook,
      ...(await pastDelivery(ph, live.id, 'email.delivered', liveMessage)),
    },
    // Events about no sent message go to endpoints of both modes.
    {
      key: testKey,
      endpoint: sandbox.id,
      hook: testHook,
      ...(await pastDelivery(ph, sandbox.id, 'domain.updated', null)),
    },
    {
      key: liveKey,
      endpoint: live.id,
      hook: liveHook,
      ...(await pastDelivery(ph, live.id, 'email.received', newId('inb'))),
    },
  ];
  for (const delivery of allowed) {
    const res = await ph.request(
      'POST',
      `/v1/webhooks/${delivery.endpoint}/deliveries/${delivery.id}/replay`,
      {
        key: delivery.key,
      },
    );
    t.is(res.status, 202, res.text);
    t.like(res.body, { trigger: 'replay', replay_of: delivery.id });
  }
  await liveHook.waitFor(2);
  await testHook.waitFor(1);
  t.deepEqual(liveHook.received.map((r) => r.body).sort(), [allowed[0]!.body, allowed[2]!.body].sort());
  t.deepEqual(
    testHook.received.map((r) => r.body),
    [allowed[1]!.body],
  );

  // Nothing was queued for the refused ones.
  const replayed = [
    ...(await deliveries(ph, live.id)).data,
    ...(await ph.request('GET', `/v1/webhooks/${sandbox.id}/deliveries`, { key: testKey })).body.data,
  ]
    .map((d: { replay_of: string | null }) => d.replay_of)
    .filter((id) => id !== null);
  t.deepEqual(replayed.sort(), allowed.map((d) => d.id).sort());
});
