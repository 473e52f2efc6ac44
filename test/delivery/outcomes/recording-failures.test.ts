/**
 * What happens when part of a job's outcome cannot be written. The faults are real: a row an
 * earlier version accepted, or a trigger that makes SQLite refuse a table, in the running server.
 */
import test from 'ava';
import {
  type DeliveryEnv,
  events,
  eventually,
  mx,
  rows,
  send,
  settled,
  sleep,
  startDeliveryEnv,
} from '../env.js';

const LEASE = { lease: '2s' };

interface JobRow {
  state: string;
  attempts: number;
  due_at: number;
  last_error: string | null;
}

const jobOf = (env: DeliveryEnv, messageId: string) =>
  rows<JobRow>(
    env.ph,
    'select state, attempts, due_at, last_error from delivery_jobs where message_id = ?',
    messageId,
  )[0];

/** Makes SQLite refuse every insert into `table`, as a full disk or a broken table would. */
function refuseInserts(env: DeliveryEnv, table: string): void {
  env.ph.server.kernel.store.sqlite.exec(
    `create trigger refuse_${table} before insert on ${table}
     begin select raise(abort, '${table} refused'); end`,
  );
}

const summary = (env: DeliveryEnv, id: string) =>
  events(env.ph, id)
    .filter((e) => e.type !== 'email.scheduled' && e.type !== 'email.sent')
    .map((e) => `${e.type} ${e.recipient}`)
    .sort();

test('a bounce whose address cannot be suppressed is still recorded, and the other recipients get one copy', async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: LEASE } });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('"john doe"@example.net', 550, '5.1.1 User unknown');
  const id = await send(env, {
    to: ['ann@example.net', 'john.doe@example.net'],
    send_at: new Date(Date.now() + 1500).toISOString(),
  });
  // A recipient queued by a version that accepted quoted local parts, which the suppression list
  // cannot hold (the send API refuses them now).
  const rewritten = env.ph.server.kernel.store.sqlite
    .prepare(
      `update message_recipients set email = '"john doe"@example.net', display = '"john doe"@example.net'
       where message_id = ? and email = 'john.doe@example.net'`,
    )
    .run(id);
  t.is(rewritten.changes, 1);

  t.is(await settled(env.ph, id, 10_000), 'partially_delivered');
  t.deepEqual(summary(env, id), ['email.bounced "john doe"@example.net', 'email.delivered ann@example.net']);
  await sleep(5000); // more than two leases
  t.is(env.peer.messages.length, 1, 'the MX got the message once');
  t.like(jobOf(env, id), { state: 'done', attempts: 1 });
});

test('a suppression that cannot be written does not undo the bounce or the deliveries beside it', async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: LEASE } });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('nobody@example.net', 550, '5.1.1 User unknown');
  refuseInserts(env, 'suppressions');
  const id = await send(env, { to: ['ann@example.net', 'nobody@example.net'] });

  t.is(await settled(env.ph, id, 10_000), 'partially_delivered');
  t.deepEqual(summary(env, id), ['email.bounced nobody@example.net', 'email.delivered ann@example.net']);
  await sleep(5000);
  t.is(env.peer.messages.length, 1, 'the MX got the message once');
  t.like(jobOf(env, id), { state: 'done', attempts: 1 });
  const suppressed = await env.ph.request('GET', '/v1/suppressions/nobody@example.net');
  t.is(suppressed.status, 404, 'the suppression itself was not written');
});

test('a job whose outcome cannot be recorded is retried on the schedule, not every lease, and stops at the maximum age', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: { delivery: { ...LEASE, retry_schedule: ['3s'], max_age: '5s' } },
  });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  refuseInserts(env, 'delivery_attempts');
  const id = await send(env, { to: ['ann@example.net'] });

  await env.peer.waitFor(1);
  const deferred = await eventually('the failure to be counted on the job', () => {
    const job = jobOf(env, id);
    return job?.attempts === 1 ? job : undefined;
  });
  t.is(deferred.state, 'queued');
  t.regex(deferred.last_error ?? '', /outcome could not be recorded/);
  t.true(deferred.due_at - Date.now() > 1500, 'deferred along the retry schedule (3s), not the lease');

  const parked = await eventually(
    'the job to stop at its maximum age',
    () => {
      const job = jobOf(env, id);
      return job?.state === 'done' ? job : undefined;
    },
    12_000,
  );
  t.regex(parked.last_error ?? '', /maximum age/);
  const sent = env.peer.messages.length;
  t.true(sent >= 2 && sent <= 3, `one copy per retry step up to the maximum age, got ${sent}`);
  t.is(parked.attempts, sent, 'every attempt is counted');
  await sleep(5000);
  t.is(env.peer.messages.length, sent, 'nothing is sent once the job has stopped');
});
