/**
 * RFC 5321 §3.8 and §4.2: a 421 may answer any command; the server is closing the channel. The
 * transaction is over for every recipient in it: all are deferred (none bounces, none is treated
 * as delivered), the connection is not used again, and the retry delivers.
 */
import test from 'ava';
import { events, mx, send, settled, startDeliveryEnv } from '../env.js';

test('a 421 to one RCPT TO defers every recipient of the transaction, and the retry delivers', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('bob@example.net', 421, '4.3.2 System shutting down', { times: 1 });
  const id = await send(env, { to: ['ann@example.net', 'bob@example.net', 'cat@example.net'] });

  t.is(await settled(env.ph, id), 'delivered');
  const delayed = events(env.ph, id).filter((e) => e.type === 'email.delivery_delayed');
  t.deepEqual(delayed.map((e) => e.recipient).sort(), [
    'ann@example.net',
    'bob@example.net',
    'cat@example.net',
  ]);
  for (const delay of delayed) t.like(delay.data.delay, { attempt: 1, status: '4.3.2' });
  t.is(env.peer.messages.length, 1, 'only the retry reached the end of DATA');
  t.deepEqual(env.peer.messages[0]?.rcptTo, ['ann@example.net', 'bob@example.net', 'cat@example.net']);
  t.is(env.peer.messages[0]?.connection, 2, 'the retry came on a new connection');
});

test('a 421 at the end of DATA defers the message, and the retry delivers on a new connection', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.dataReply(421, '4.4.2 Closing connection', { times: 1 });
  const id = await send(env, { to: ['ann@example.net'] });

  t.is(await settled(env.ph, id), 'delivered');
  t.deepEqual(
    events(env.ph, id).map((e) => e.type),
    ['email.sent', 'email.delivery_delayed', 'email.delivered'],
  );
  t.deepEqual(
    env.peer.messages.map((m) => m.connection),
    [1, 2],
  );
});
