import test from 'ava';
import { purgeAll } from '../../src/events/retention.js';
import { startPosthorn } from '../helpers/server.js';
import { at, recorder, report } from './helpers.js';

const totals = (body: { sent: number; delivered: number; complained: number; daily: any[] }) => ({
  sent: body.sent,
  delivered: body.delivered,
  complained: body.complained,
  queued: body.daily.reduce((sum: number, day: { queued: number }) => sum + day.queued, 0),
  deferred: body.daily.reduce((sum: number, day: { deferred: number }) => sum + day.deferred, 0),
});

test('retention forgets only settled recipients, and events that come after never count a recipient twice', async (t) => {
  const ph = await startPosthorn(t);
  const r = recorder(ph);
  // Ten days ago: one delivered, one scheduled for today, one deferred and retried ever since.
  const delivered = r.message(at(10));
  await r.add('email.sent', delivered, null, at(10), { to: ['ann@example.com'] });
  await r.add('email.delivered', delivered, 'ann@example.com', at(10, 1000), {
    delivery: { lane: 'default', latency_ms: 1000 },
  });
  const scheduled = r.message(at(10, 5));
  await r.add('email.scheduled', scheduled, null, at(10, 5), {
    to: ['bob@example.com'],
    scheduled_at: new Date(at(0)).toISOString(),
  });
  const deferred = r.message(at(10, 10));
  await r.add('email.sent', deferred, null, at(10, 10), { to: ['cat@example.com'] });
  await r.add('email.delivery_delayed', deferred, 'cat@example.com', at(10, 20), { lane: 'default' });
  t.deepEqual(totals(await report(ph, 30)), { sent: 3, delivered: 1, complained: 0, queued: 1, deferred: 1 });

  const { analytics } = ph.server.services;
  const removed = await purgeAll({ analytics_recipients: (cutoff) => analytics.purgeBefore(cutoff) }, at(7));
  t.deepEqual(removed, { analytics_recipients: 1 }, 'only the delivered record is forgotten');

  // Today: the scheduled send is released and delivered, the deferred one delivered at last, and
  // a complaint arrives for the recipient whose record is gone.
  await r.add('email.sent', scheduled, null, at(0), { to: ['bob@example.com'] });
  await r.add('email.delivered', scheduled, 'bob@example.com', at(0, 500), { lane: 'default' });
  await r.add('email.delivered', deferred, 'cat@example.com', at(0, 600), { lane: 'default' });
  await r.add('email.complained', delivered, 'ann@example.com', at(0, 700), {});
  const after = await report(ph, 30);
  t.deepEqual(totals(after), { sent: 3, delivered: 3, complained: 0, queued: 0, deferred: 0 });
  t.like(after.daily[19], { accepted: 3, delivered: 3 });
  t.like(after.daily[29], { accepted: 0 });
});
