import test from 'ava';
import { mx, rows, send, startDeliveryEnv } from '../env.js';

test('recipients go out in the order they were submitted, whatever order the store keeps their rows in', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const to = ['ann@example.net', 'bob@example.net', 'cat@example.net'];
  const id = await send(env, { to, send_at: new Date(Date.now() + 2000).toISOString() });
  // Rows stored back to front (as after a VACUUM may be): only their IDs say the order.
  const { sqlite } = env.ph.server.kernel.store;
  sqlite.prepare('update message_recipients set rowid = -rowid where message_id = ?').run(id);
  const stored = rows<{ email: string }>(
    env.ph,
    'select email from message_recipients where message_id = ?',
    id,
  );
  t.deepEqual(
    stored.map((r) => r.email),
    [...to].reverse(),
    'the rows read back to front',
  );

  const [message] = await env.peer.waitFor(1, 15_000);
  t.deepEqual(message?.rcptTo, to);
  const header = /^To: (.*)$/m.exec(message?.data.toString('latin1') ?? '')?.[1];
  t.is(header, to.join(', '));
});
