import test from 'ava';
import { startPosthorn } from '../../helpers/server.js';

test('the attempt log is purged with the events it explains', async (t) => {
  const ph = await startPosthorn(t);
  const day = 86_400_000;
  const insert = ph.server.kernel.store.sqlite.prepare(
    `insert into delivery_attempts (job_id, message_id, lane, mx_host, tls, outcome, smtp_code, smtp_reply, started_at, duration_ms)
     values ('job_x', 'msg_x', 'default', 'mx.example', 1, 'delivered', 250, '250 OK', ?, 12)`,
  );
  insert.run(Date.now() - 100 * day);
  insert.run(Date.now() - 100 * day);
  insert.run(Date.now() - day);
  const removed = await ph.server.services.delivery.purgeAttemptsBefore(Date.now() - 90 * day);
  t.is(removed, 2);
  const left = ph.server.kernel.store.sqlite.prepare('select count(*) as n from delivery_attempts').get() as {
    n: number;
  };
  t.is(left.n, 1);
});
