/**
 * RFC 5321 §4.5.4.1: a temporary failure is retried on the schedule until the message is too old,
 * then the recipient bounces (5.4.7, delivery time expired), softly: the address may be fine.
 */
import test from 'ava';
import { events, mx, rows, send, settled, startDeliveryEnv } from '../env.js';

test('a recipient deferred until max_age bounces with 5.4.7, softly, after attempts on the schedule', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: { delivery: { retry_schedule: ['1s'], max_age: '3500ms' } },
  });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('ann@example.net', 451, '4.3.0 Temporary local problem');
  const id = await send(env, { to: ['ann@example.net'] });

  t.is(await settled(env.ph, id, 10_000), 'bounced');
  const history = events(env.ph, id).filter((e) => e.type !== 'email.sent');
  const bounce = history.at(-1);
  t.is(bounce?.type, 'email.bounced');
  t.like(bounce?.data.bounce, { type: 'soft', status: '5.4.7', expired: true, category: 'other' });
  t.regex(
    String(bounce?.data.bounce.smtp_response),
    /^451 4\.3\.0 Temporary local problem/,
    'the last reply is kept',
  );
  const delays = history.filter((e) => e.type === 'email.delivery_delayed');
  t.true(delays.length >= 2, `${delays.length} deferrals before the end`);
  t.deepEqual(
    delays.map((e) => e.data.delay.attempt),
    delays.map((_, i) => i + 1),
  );
  // Each deferral names the next attempt, never past the maximum age.
  const [message] = rows<{ created_at: number }>(env.ph, 'select created_at from messages where id = ?', id);
  for (const delay of delays) {
    t.true(Date.parse(delay.data.delay.next_attempt_at) <= (message?.created_at ?? 0) + 3500);
  }
  t.deepEqual(rows(env.ph, 'select email from suppressions'), [], 'an expiry is never a hard bounce');
});
