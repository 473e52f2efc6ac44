/**
 * How long the client waits for a server (RFC 5321 §4.5.3.2): `connect_timeout` bounds only the
 * TCP connection; the greeting is a reply like any other (§4.5.3.2.1: servers delay it under load),
 * and the reply to the end of DATA gets at least 10 minutes (§4.5.3.2.6: the server is delivering;
 * giving up on it sends the message twice).
 */
import test from 'ava';
import { events, mx, send, settled, startDeliveryEnv } from '../env.js';

test('a greeting slower than connect_timeout is waited for, and the message delivered at once', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: { delivery: { connect_timeout: '500ms', smtp_timeout: '10s' } },
  });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.delayGreeting(1500);
  const id = await send(env, { to: ['ann@example.net'] });

  t.is(await settled(env.ph, id, 15_000), 'delivered');
  t.deepEqual(
    events(env.ph, id).map((e) => e.type),
    ['email.sent', 'email.delivered'],
    'no attempt timed out waiting for the greeting',
  );
  t.is(env.peer.messages.length, 1);
});

test('a server slow to answer the end of DATA is waited for, not sent the message twice', async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: { smtp_timeout: '1s' } } });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  // Longer than smtp_timeout, far shorter than the 10 minutes RFC 5321 §4.5.3.2.6 asks for.
  env.peer.delayDataReply(2500);
  const id = await send(env, { to: ['ann@example.net'] });

  t.is(await settled(env.ph, id, 15_000), 'delivered');
  t.deepEqual(
    events(env.ph, id).map((e) => e.type),
    ['email.sent', 'email.delivered'],
  );
  t.is(env.peer.messages.length, 1, 'the server received the message once');
});

test('after a slow end of DATA, the next command on the connection has smtp_timeout again', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: { delivery: { smtp_timeout: '1s', idle_timeout: '10s' } },
  });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.delayDataReply(1500);
  const first = await send(env, { to: ['ann@example.net'] });
  t.is(await settled(env.ph, first, 15_000), 'delivered');

  // The same connection now carries a message whose MAIL FROM reply never comes in time.
  env.peer.delayDataReply(0);
  env.peer.delayMailFromReply(5000);
  const started = Date.now();
  const second = await send(env, { to: ['bob@example.net'] });
  const { elapsed } = await new Promise<{ elapsed: number }>((resolve) => {
    const poll = setInterval(() => {
      if (events(env.ph, second).some((e) => e.type === 'email.delivery_delayed')) {
        clearInterval(poll);
        resolve({ elapsed: Date.now() - started });
      }
    }, 25);
  });
  t.true(elapsed < 4000, `deferred after ${elapsed} ms: the MAIL FROM waited smtp_timeout, not 10 minutes`);
});
