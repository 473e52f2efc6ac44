import test from 'ava';
import { purgeAll } from '../../src/events/retention.js';
import { idFloor, idTime, newId } from '../../src/platform/ids.js';
import { startPosthorn } from '../helpers/server.js';
import { query } from '../helpers/sql.js';
import { createEndpoint, emit } from '../webhooks/helpers.js';
import { eventually, startReceiver } from '../webhooks/receiver.js';

const DAY = 86_400_000;

test('idFloor sorts below every ID created at or after its time and above earlier ones', (t) => {
  const now = Date.now();
  const floor = idFloor('evt', now);
  t.true(floor <= newId('evt', now));
  t.true(idFloor('evt', now - 1) < floor);
  t.is(idTime(floor), now);
  t.is(idTime('not-an-id'), undefined);
});

test('retention removes events, webhook messages with their attempts, and analytics records older than the cutoff', async (t) => {
  const ph = await startPosthorn(t, { webhooks: { allow_http: true, allow_private_targets: true } });
  const receiver = await startReceiver(t);
  const endpoint = await createEndpoint(ph, receiver.url);
  // One message, sent and delivered: a settled record, which retention may forget.
  const sent = await emit(ph, 'email.sent');
  await emit(ph, 'email.delivered', { lane: 'gmail' }, ph.owner.projectId, sent.data.email_id as string);
  await receiver.waitFor(2);
  const store = ph.server.kernel.store;
  const count = async (table: string, where = '1 = 1') =>
    Number((await query<{ n: number }>(store, `select count(*) as n from ${table} where ${where}`))[0]?.n);
  // Both deliveries recorded (the receiver answers before the outcome is written).
  await eventually(async () =>
    (await count('webhook_attempts', "state = 'succeeded'")) === 2 &&
    (await count('analytics_recipients')) > 0
      ? true
      : undefined,
  );
  const { services } = ph.server;
  const purgers = {
    events: (cutoff: number) => services.events.purgeBefore(cutoff),
    webhook_messages: (cutoff: number) => services.webhooks.store.purgeBefore(cutoff),
    analytics_recipients: (cutoff: number) => services.analytics.purgeBefore(cutoff),
  };

  t.deepEqual(await purgeAll(purgers, Date.now() - 90 * DAY), {
    events: 0,
    webhook_messages: 0,
    analytics_recipients: 0,
  });
  t.is(await count('events'), 2);

  const removed = await purgeAll(purgers, Date.now() + 2 * DAY);
  t.deepEqual(removed, {
    events: 2,
    webhook_messages: 2,
    analytics_recipients: removed.analytics_recipients,
  });
  t.true(removed.analytics_recipients! > 0);
  t.is(await count('events'), 0);
  t.is(await count('webhook_messages'), 0);
  t.is(await count('webhook_attempts'), 0);
  t.is(await count('analytics_recipients'), 0);
  // The daily aggregates stay, so reports over the window keep their numbers.
  t.true((await count('analytics_daily')) > 0);
  const log = await ph.request('GET', `/v1/webhooks/${endpoint.id}/deliveries`);
  t.deepEqual(log.body.data, []);
});

test('retention keeps a webhook message whose retry is still pending, and removes it once done', async (t) => {
  const ph = await startPosthorn(t, {
    webhooks: { allow_http: true, allow_private_targets: true, retry_schedule: ['1h'] },
  });
  const receiver = await startReceiver(t);
  receiver.reply((_request, index) => (index === 0 ? { status: 200 } : { status: 500 }));
  const endpoint = await createEndpoint(ph, receiver.url);
  await emit(ph, 'email.sent');
  await receiver.waitFor(1);
  await emit(ph, 'email.delivered');
  await receiver.waitFor(2);
  const store = ph.server.kernel.store;
  const attempts = () => query<{ state: string }>(store, 'select state from webhook_attempts order by id');
  await eventually(async () => ((await attempts()).length === 3 ? true : undefined));
  const { services } = ph.server;
  const purgers = { webhook_messages: (cutoff: number) => services.webhooks.store.purgeBefore(cutoff) };

  t.deepEqual(await purgeAll(purgers, Date.now() + 2 * DAY), { webhook_messages: 1 });
  t.deepEqual(
    (await attempts()).map((a) => a.state),
    ['failed', 'pending'],
    'the failed delivery and its waiting retry are still there',
  );
  const log = await ph.request('GET', `/v1/webhooks/${endpoint.id}/deliveries`);
  t.like(log.body.data[0], { status: 'pending', attempt: 2 });

  await query(store, `update webhook_attempts set state = 'failed' where state = 'pending'`);
  t.deepEqual(await purgeAll(purgers, Date.now() + 2 * DAY), { webhook_messages: 1 });
  t.deepEqual(await attempts(), []);
});
