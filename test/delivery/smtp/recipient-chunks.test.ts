/**
 * RFC 5321 §4.5.3.1.8: a server must take 100 recipients per transaction and may refuse more;
 * a client with more SHOULD send them in chunks of 100. A job with more recipients than that
 * goes out in several transactions at once, instead of the rest waiting for a retry.
 */
import test from 'ava';
import { events, mx, send, settled, startDeliveryEnv } from '../env.js';

test('a message to 130 recipients of one domain goes out in transactions of 100, none deferred', async (t) => {
  const env = await startDeliveryEnv(t, { peer: { maxRecipients: 100 } });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const to = Array.from({ length: 100 }, (_, i) => `to${i}@example.net`);
  const cc = Array.from({ length: 30 }, (_, i) => `cc${i}@example.net`);
  const id = await send(env, { to, cc });

  t.is(await settled(env.ph, id, 15_000), 'delivered');
  const types = events(env.ph, id).map((e) => e.type);
  t.is(types.filter((type) => type === 'email.delivered').length, 130);
  t.false(types.includes('email.delivery_delayed'), 'no recipient waited for a retry');
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo.length),
    [100, 30],
  );
  t.deepEqual(
    env.peer.messages.map((m) => m.rejectedRcptTo.length),
    [0, 0],
    'no RCPT TO beyond the hundredth was refused',
  );
});
