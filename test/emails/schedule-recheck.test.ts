/**
 * A scheduled send is checked again when its time comes (up to 30 days after acceptance): a
 * recipient suppressed meanwhile is held back, and a suspended project or a sender domain no
 * longer verified fails the send instead of releasing it. Delivery runs against the built-in sink
 * (`ph_test_` key), so what was or was not delivered shows in the event log.
 */
import test from 'ava';
import { type Posthorn, startPosthorn } from '../helpers/server.js';
import { email, rows, sleep, verifiedDomain } from './helpers.js';

const FINAL = new Set(['delivered', 'partially_delivered', 'bounced', 'failed', 'suppressed', 'cancelled']);

async function scheduledSoon(ph: Posthorn, overrides: Record<string, unknown>) {
  const key = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  // Far enough ahead that a loaded host still accepts it and applies the change before the release.
  const sendAt = Date.now() + 15_000;
  const res = await ph.request('POST', '/v1/emails', {
    key,
    body: email({ ...overrides, send_at: new Date(sendAt).toISOString() }),
  });
  if (res.status !== 202 || res.body.status !== 'scheduled') throw new Error(`not scheduled: ${res.text}`);
  return { id: res.body.id as string, sendAt, key };
}

/** Suppresses with the test key that sent: a suppression applies to its own mode's sends (DESIGN.md §4a). */
async function suppress(ph: Posthorn, key: string, address: string, reason: string) {
  const res = await ph.request('POST', '/v1/suppressions', { key, body: { email: address, reason } });
  if (res.status !== 201) throw new Error(`suppression refused: ${res.text}`);
}

/**
 * Waits until the message reaches a final status, and a little longer for late events. `key` is
 * the test key that sent it: only a test key reads a test message.
 */
async function settled(
  ph: Posthorn,
  { id, sendAt, key }: { id: string; sendAt: number; key: string },
): Promise<string> {
  const statusOf = async () => (await ph.request('GET', `/v1/emails/${id}`, { key })).body.status;
  // The change under test must land before the release, or the test proves nothing.
  let status = await statusOf();
  if (status !== 'scheduled' || Date.now() >= sendAt) throw new Error('released before the change landed');
  while (!FINAL.has(status) && Date.now() < sendAt + 30_000) {
    await sleep(100);
    status = await statusOf();
  }
  await sleep(700);
  return statusOf();
}

const failureReason = (data: Record<string, unknown> | undefined): string =>
  String((data?.failure as { reason?: unknown } | undefined)?.reason ?? '');

const recipientStatuses = async (ph: Posthorn, id: string) =>
  Object.fromEntries(
    (
      await rows<{ email: string; status: string }>(
        ph,
        'select email, status from message_recipients where message_id = ? order by email',
        id,
      )
    ).map((r) => [r.email, r.status]),
  );

test('a scheduled send whose only recipient was suppressed meanwhile is never queued, ends suppressed and emits email.suppressed', async (t) => {
  const ph = await startPosthorn(t, { delivery: { enabled: true } });
  await verifiedDomain(ph);
  const { id, sendAt, key } = await scheduledSoon(ph, { to: ['ann@example.com'] });
  await suppress(ph, key, 'ann@example.com', 'unsubscribe');

  t.is(await settled(ph, { id, sendAt, key }), 'suppressed');
  t.deepEqual(await recipientStatuses(ph, id), { 'ann@example.com': 'suppressed' });
  t.deepEqual(await rows(ph, 'select state from delivery_jobs where message_id = ?', id), [
    { state: 'cancelled' },
  ]);
  t.is((await rows(ph, 'select 1 from delivery_attempts where message_id = ?', id)).length, 0);
  const events = await ph.server.services.events.forMessage(id);
  t.deepEqual(
    events.map((e) => e.type),
    ['email.scheduled', 'email.suppressed'],
  );
  t.like(events[1]?.data, {
    email_id: id,
    subject: 'Hello',
    suppression: { recipient: 'ann@example.com', reason: 'unsubscribe' },
  });
});

test('a scheduled send releases the recipients still allowed and holds back the ones suppressed meanwhile', async (t) => {
  const ph = await startPosthorn(t, { delivery: { enabled: true } });
  await verifiedDomain(ph);
  const { id, sendAt, key } = await scheduledSoon(ph, {
    to: ['ann@example.com', 'bob@example.com'],
    cc: ['cy@other.test'],
  });
  await suppress(ph, key, 'ann@example.com', 'unsubscribe');
  await suppress(ph, key, 'cy@other.test', 'manual_block');

  t.is(await settled(ph, { id, sendAt, key }), 'partially_delivered');
  t.deepEqual(await recipientStatuses(ph, id), {
    'ann@example.com': 'suppressed',
    'bob@example.com': 'delivered',
    'cy@other.test': 'suppressed',
  });
  // cy's domain had no one left to deliver to: its job is not queued at all.
  t.deepEqual(
    await rows(ph, 'select domain, state from delivery_jobs where message_id = ? order by domain', id),
    [
      { domain: 'example.com', state: 'done' },
      { domain: 'other.test', state: 'cancelled' },
    ],
  );
  const events = await ph.server.services.events.forMessage(id);
  t.deepEqual(
    events.map((e) => e.type),
    ['email.scheduled', 'email.suppressed', 'email.suppressed', 'email.sent', 'email.delivered'],
  );
  t.deepEqual(
    events.filter((e) => e.type === 'email.suppressed').map((e) => e.data.suppression),
    [
      { recipient: 'ann@example.com', reason: 'unsubscribe' },
      { recipient: 'cy@other.test', reason: 'manual_block' },
    ],
  );
  const sent = events.find((e) => e.type === 'email.sent');
  t.like(sent?.data, { to: ['bob@example.com'], cc: [], bcc: [] });
  const delivered = events.find((e) => e.type === 'email.delivered');
  t.like(delivered?.data, { delivery: { recipient: 'bob@example.com' } });
});

test('a scheduled send of a project suspended meanwhile is not released: it fails with email.failed saying why', async (t) => {
  const ph = await startPosthorn(t, { delivery: { enabled: true } });
  await verifiedDomain(ph);
  const { id, sendAt, key } = await scheduledSoon(ph, { to: ['ann@example.com', 'bob@other.test'] });
  await ph.server.services.projects.setStatus(ph.owner.projectId, 'suspended', 'test');

  t.is(await settled(ph, { id, sendAt, key }), 'failed');
  t.deepEqual(await recipientStatuses(ph, id), { 'ann@example.com': 'failed', 'bob@other.test': 'failed' });
  t.deepEqual(await rows(ph, 'select state from delivery_jobs where message_id = ?', id), [
    { state: 'cancelled' },
    { state: 'cancelled' },
  ]);
  t.is((await rows(ph, 'select 1 from delivery_attempts where message_id = ?', id)).length, 0);
  const events = await ph.server.services.events.forMessage(id);
  t.deepEqual(
    events.map((e) => e.type),
    ['email.scheduled', 'email.failed', 'email.failed'],
  );
  for (const event of events.slice(1)) t.regex(failureReason(event.data), /project is suspended/);
  t.deepEqual(
    events.slice(1).map((e) => (e.data.failure as { recipient: string }).recipient),
    ['ann@example.com', 'bob@other.test'],
  );
});

test('a scheduled send of a project set back to the sandbox meanwhile fails with email.failed saying why', async (t) => {
  const ph = await startPosthorn(t, { delivery: { enabled: true } });
  await verifiedDomain(ph);
  const { id, sendAt, key } = await scheduledSoon(ph, { to: ['ann@example.com'] });
  await ph.server.services.projects.setStatus(ph.owner.projectId, 'sandbox', 'test');

  t.is(await settled(ph, { id, sendAt, key }), 'failed');
  const events = await ph.server.services.events.forMessage(id);
  t.deepEqual(
    events.map((e) => e.type),
    ['email.scheduled', 'email.failed'],
  );
  t.regex(failureReason(events[1]?.data), /project is in the sandbox/);
});

test('a scheduled send whose sender domain is no longer verified fails with email.failed naming the domain', async (t) => {
  const ph = await startPosthorn(t, { delivery: { enabled: true } });
  await verifiedDomain(ph);
  const { id, sendAt, key } = await scheduledSoon(ph, { to: ['ann@example.com'] });
  await rows(ph, `update domains set status = 'failed' where name = 'acme.test'`);

  t.is(await settled(ph, { id, sendAt, key }), 'failed');
  const events = await ph.server.services.events.forMessage(id);
  t.deepEqual(
    events.map((e) => e.type),
    ['email.scheduled', 'email.failed'],
  );
  t.regex(failureReason(events[1]?.data), /acme\.test is not a verified domain/);
  t.is((await rows(ph, 'select 1 from delivery_attempts where message_id = ?', id)).length, 0);
});
