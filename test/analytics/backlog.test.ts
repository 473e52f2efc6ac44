/**
 * A backlog larger than a batch: the projection works through it in slices bounded in time (a few
 * milliseconds of the event loop each, several transactions), and counts every event once.
 */
import test from 'ava';
import type { NewEvent } from '../../src/events/service.js';
import { newId } from '../../src/platform/ids.js';
import { startPosthorn } from '../helpers/server.js';
import { at, report } from './helpers.js';

test('a backlog of 4,000 events is projected in slices, each event counted once', async (t) => {
  const ph = await startPosthorn(t);
  const { events } = ph.server.services;
  const projectId = ph.owner.projectId;
  const backlog: NewEvent[] = [];
  for (let i = 0; i < 1000; i++) {
    const messageId = newId('msg', at(0));
    const recipient = `reader${i}@a.test`;
    const event = (type: NewEvent['type'], ms: number, data: Record<string, unknown>): NewEvent => ({
      projectId,
      type,
      messageId,
      recipient: type === 'email.sent' ? null : recipient,
      at: at(0, ms),
      data: { email_id: messageId, ...data },
    });
    backlog.push(
      event('email.sent', 0, { to: [recipient] }),
      event('email.delivered', 100, { lane: 'default', latency_ms: 100 }),
      event('email.opened', 200, { machine: true, reason: 'apple_mpp' }),
      event('email.opened', 300, { machine: false }),
    );
  }
  // One commit, so the whole backlog is there before the projection reads any of it.
  await ph.server.kernel.db.transaction().execute((trx) => events.appendMany(trx, backlog));
  events.notify();

  // A report waits for the projection for a while (2 s), then answers with what it has.
  let body = await report(ph, 1);
  for (let tries = 0; body.sent < 1000 && tries < 30; tries++) body = await report(ph, 1);
  t.like(body, {
    sent: 1000,
    delivered: 1000,
    unique_opens: 1000,
    machine_opens: 1000,
    open_rate: 1,
    median_delivery_latency_ms: 100,
  });
  // Nothing more comes of a later catch-up: every event was counted once.
  await ph.server.services.analytics.catchUp();
  t.like(await report(ph, 1), { sent: 1000, delivered: 1000, unique_opens: 1000, machine_opens: 1000 });
});
