import test from 'ava';
import { eventually, events, mx, recipientStatuses, rows, send, startDeliveryEnv } from './env.js';

test('a cancelled recipient is never delivered, even when its job and message are queued again', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const id = await send(env, {
    to: ['ann@example.net', 'bob@example.net'],
    send_at: new Date(Date.now() + 3_600_000).toISOString(),
  });
  t.is((await env.ph.request('DELETE', `/v1/emails/${id}/schedule`)).status, 204);
  // The worst a race between the release and the cancel could leave: job and message queued and
  // due. The recipients' own status must still keep them from the MX.
  const { sqlite } = env.ph.server.kernel.store;
  sqlite.prepare(`update messages set status = 'queued' where id = ?`).run(id);
  sqlite
    .prepare(`update delivery_jobs set state = 'queued', due_at = ? where message_id = ?`)
    .run(Date.now(), id);

  await eventually('the job to be taken and finished', () => {
    const [job] = rows<{ state: string }>(env.ph, 'select state from delivery_jobs where message_id = ?', id);
    return job?.state === 'done';
  });
  t.is(env.peer.connections, 0);
  t.deepEqual(recipientStatuses(env.ph, id), {
    'ann@example.net': 'cancelled',
    'bob@example.net': 'cancelled',
  });
  t.is(rows(env.ph, 'select 1 from delivery_attempts where message_id = ?', id).length, 0);
  t.deepEqual(
    events(env.ph, id).map((e) => e.type),
    ['email.scheduled', 'email.cancelled'],
  );
});
