import test from 'ava';
import { startPosthorn } from '../../helpers/server.js';
import { query } from '../../helpers/sql.js';

test('the attempt log is purged with the events it explains', async (t) => {
  const ph = await startPosthorn(t);
  const day = 86_400_000;
  const store = ph.server.kernel.store;
  const insert = (startedAt: number) =>
    query(
      store,
      `insert into delivery_attempts (job_id, message_id, lane, mx_host, tls, outcome, smtp_code, smtp_reply, started_at, duration_ms)
       values ('job_x', 'msg_x', 'default', 'mx.example', 1, 'delivered', 250, '250 OK', ?, 12)`,
      startedAt,
    );
  await insert(Date.now() - 100 * day);
  await insert(Date.now() - 100 * day);
  await insert(Date.now() - day);
  const removed = await ph.server.services.delivery.purgeAttemptsBefore(Date.now() - 90 * day);
  t.is(removed, 2);
  const [left] = await query<{ n: number }>(store, 'select count(*) as n from delivery_attempts');
  t.is(Number(left?.n), 1);
});
