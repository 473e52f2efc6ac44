/**
 * The event log read for a few types (events/window.ts): a reader moves past a window of events
 * it skips without reading them whole, and the webhook fan-out, reading only the types its
 * endpoints take, still sends each of those once and nothing else.
 */
import test from 'ava';
import { DISPATCHER_CURSOR } from '../../src/webhooks/fan-out.js';
import { startPosthorn } from '../helpers/server.js';
import { createEndpoint, emit } from '../webhooks/helpers.js';
import { eventually, startReceiver } from '../webhooks/receiver.js';

const sorted = (ids: readonly string[]) => [...ids].sort();

test('a window gives its events of the asked types whole, its size and its last event', async (t) => {
  const ph = await startPosthorn(t);
  const { events } = ph.server.services;
  const before = (await events.rowsAfter('', 100_000)).at(-1)?.id ?? '';
  const types = [
    'email.delivered',
    'email.opened',
    'email.opened',
    'email.bounced',
    'email.clicked',
    'email.delivered',
  ] as const;
  const ids: string[] = [];
  for (const type of types) ids.push((await emit(ph, type)).id);
  const counted = ['email.delivered', 'email.bounced'];
  // On PostgreSQL an event is read once every transaction older than it has ended (log-pg.ts).
  await eventually(async () => ((await events.windowAfter(before, 10, [])).read === 6 ? true : undefined));

  const first = await events.windowAfter(before, 4, counted);
  t.is(first.read, 4);
  t.is(first.last, ids[3]);
  t.deepEqual(
    first.rows.map((row) => [row.id, row.type]),
    [
      [ids[0], 'email.delivered'],
      [ids[3], 'email.bounced'],
    ],
  );
  t.like(first.rows[0], { project_id: ph.owner.projectId, recipient: 'jane@example.com' });
  t.is(JSON.parse(first.rows[0]?.data ?? '{}').subject, 'Hi');

  const second = await events.windowAfter(first.last ?? '', 4, counted);
  t.is(second.read, 2);
  t.is(second.last, ids[5]);
  t.deepEqual(
    second.rows.map((row) => row.id),
    [ids[5]],
  );
  t.deepEqual(await events.windowAfter(ids[5] ?? '', 4, counted), { rows: [], last: undefined, read: 0 });

  // No type asked: only the window's bound; every type: the rows as rowsAfter reads them.
  t.deepEqual(await events.windowAfter(before, 10, []), { rows: [], last: ids[5], read: 6 });
  const every = await events.windowAfter(before, 3, undefined);
  t.deepEqual(every.rows, await events.rowsAfter(before, 3));
  t.is(every.last, ids[2]);
});

test('the fan-out sends the types an endpoint takes among many it skips, each once, and moves its cursor past the rest', async (t) => {
  const ph = await startPosthorn(t, { webhooks: { allow_http: true, allow_private_targets: true } });
  const receiver = await startReceiver(t);
  await createEndpoint(ph, receiver.url, ['email.bounced']);
  const sent: string[] = [];
  let last = '';
  for (let i = 0; i < 300; i++) {
    const type = i % 100 === 50 ? 'email.bounced' : i % 2 === 0 ? 'email.opened' : 'email.clicked';
    const event = await emit(ph, type);
    if (type === 'email.bounced') sent.push(event.id);
    last = event.id;
  }
  await receiver.waitFor(sent.length);
  const cursor = () =>
    ph.server.kernel.db
      .selectFrom('event_cursors')
      .select('last_event_id')
      .where('consumer', '=', DISPATCHER_CURSOR)
      .executeTakeFirst();
  await eventually(async () => ((await cursor())?.last_event_id === last ? true : undefined));
  await new Promise((resolve) => setTimeout(resolve, 300));
  // Each once (webhooks are sent concurrently: in any order).
  t.deepEqual(sorted(receiver.received.map((r) => JSON.parse(r.body).id)), sorted(sent));
});
