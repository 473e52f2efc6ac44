import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { at, recorder, report } from './helpers.js';

test('a recipient bounced by a DSN after its delivery leaves the delivery latency median', async (t) => {
  const ph = await startPosthorn(t);
  const r = recorder(ph);
  const m = r.message(at(0));
  await r.add('email.sent', m, null, at(0), { to: ['p@gmail.com', 'q@gmail.com', 's@gmail.com'] });
  for (const [recipient, latency] of [
    ['p@gmail.com', 1000],
    ['q@gmail.com', 2000],
    ['s@gmail.com', 6000],
  ] as const) {
    await r.add('email.delivered', m, recipient, at(0, latency), {
      delivery: { recipient, lane: 'gmail', latency_ms: latency },
    });
  }
  t.like(await report(ph, 1), { delivered: 3, median_delivery_latency_ms: 2000 });

  const dsn = { bounce: { recipient: 'q@gmail.com', type: 'hard', source: 'dsn' } };
  await r.add('email.bounced', m, 'q@gmail.com', at(0, 90_000), dsn);
  let body = await report(ph, 1);
  t.like(body, { delivered: 2, bounced: 1, median_delivery_latency_ms: 3500 });
  t.like(body.providers[0], { provider: 'gmail', median_delivery_latency_ms: 3500 });
  // A repeated bounce, or a complaint for another recipient, changes nothing more.
  await r.add('email.bounced', m, 'q@gmail.com', at(0, 95_000), dsn);
  await r.add('email.complained', m, 'p@gmail.com', at(0, 99_000), {});
  body = await report(ph, 1);
  t.like(body, { delivered: 2, bounced: 1, complained: 1, median_delivery_latency_ms: 3500 });
});
