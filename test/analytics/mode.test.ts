import test from 'ava';
import { events, eventually, mx, send, settled, startDeliveryEnv } from '../delivery/env.js';
import { report } from './helpers.js';

test('test-key traffic is reported to test keys only, so sandbox bounces and complaints leave the live rates alone', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const { ph } = env;
  const testKey = await ph.createKey(ph.owner.projectId, ['emails:send', 'analytics:read'], 'test');
  const live = await send(env, { to: ['ann@example.net'] });
  const sandbox = await send(
    env,
    { to: ['bounce@posthorn.test', 'complaint@posthorn.test', 'ok@example.net'] },
    testKey,
  );
  t.is(await settled(ph, live), 'delivered');
  t.is(await settled(ph, sandbox), 'partially_delivered');

  // The complaint follows the delivery; wait until the events of both are in the log.
  await eventually('the complaint', () => events(ph, sandbox).some((e) => e.type === 'email.complained'));
  const sandboxReport = await report(ph, 1, testKey);
  t.like(sandboxReport, {
    sent: 3,
    delivered: 2,
    bounced: 1,
    complained: 1,
    bounce_rate: 1 / 3,
    complaint_rate: 1 / 2,
  });
  t.deepEqual(
    sandboxReport.providers.map((p: { provider: string; total: number }) => [p.provider, p.total]),
    [['sandbox', 3]],
  );

  const liveReport = await report(ph, 1);
  t.like(liveReport, {
    sent: 1,
    delivered: 1,
    bounced: 0,
    complained: 0,
    delivery_rate: 1,
    bounce_rate: 0,
    complaint_rate: 0,
  });
  t.like(liveReport.daily[0], { accepted: 1, delivered: 1, bounced: 0, complained: 0 });
  t.deepEqual(
    liveReport.providers.map((p: { provider: string; total: number }) => [p.provider, p.total]),
    [['default', 1]],
  );
});
