/**
 * A job with more recipients than one transaction takes (chunks of 100, follow-ups after "452 too
 * many recipients") can be stopped partway. The recipients a transaction that ended already
 * answered are recorded at the stop; only the others go back to the queue, due at once with no
 * event and no attempt counted, and only they are sent after a restart. A refusal over the
 * server's limit answers nothing about its recipient: those whose follow-up never ran go back too.
 */
import test, { type ExecutionContext } from 'ava';
import SQLite from 'better-sqlite3';
import { SMTPServer } from 'smtp-server';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';
import { type DeliveryEnv, eventually, events, mx, send, settled, startDeliveryEnv } from './env.js';

interface HeldMx {
  /** Messages whose final dot arrived, with their recipients. */
  readonly received: string[][];
  /** The 250s written, one per message answered. */
  answered: number;
}

/**
 * An MX on loopback that answers the end of DATA of its first message after `firstAfterMs` and
 * holds every later one (the reply never comes while the client stays). With `maxRecipients`, RCPT
 * TOs past it get "452 4.5.3 Too many recipients".
 */
async function heldMx(
  t: ExecutionContext,
  host: string,
  port: number,
  options: { firstAfterMs?: number; maxRecipients?: number } = {},
): Promise<HeldMx> {
  const state: HeldMx = { received: [], answered: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onRcptTo(_address, session, callback) {
      const max = options.maxRecipients ?? Number.POSITIVE_INFINITY;
      if (session.envelope.rcptTo.length >= max) {
        const error = new Error('4.5.3 Too many recipients') as Error & { responseCode: number };
        error.responseCode = 452;
        callback(error);
      } else callback();
    },
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        state.received.push(session.envelope.rcptTo.map((r) => r.address));
        if (state.received.length > 1) return; // held: the client is cut off first
        setTimeout(() => {
          state.answered += 1;
          callback(null, 'OK: queued');
        }, options.firstAfterMs ?? 0);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return state;
}

function openStore(t: ExecutionContext, env: DeliveryEnv) {
  const db = new SQLite(env.ph.server.kernel.store.file, { readonly: true });
  t.teardown(() => db.close());
  return {
    statuses: (id: string) =>
      db
        .prepare('select status, count(*) as n from message_recipients where message_id = ? group by status')
        .all(id),
    job: (id: string) =>
      db
        .prepare(
          'select state, attempts, locked_until, due_at <= ? as due from delivery_jobs where message_id = ?',
        )
        .get(Date.now(), id),
    eventCounts: (id: string) =>
      db
        .prepare('select type, count(*) as n from events where message_id = ? group by type order by type')
        .all(id),
  };
}

/** Starts Posthorn again on the same data directory, its MX now the prompt peer. */
async function restart(t: ExecutionContext, env: DeliveryEnv, domain: string) {
  mx(env.dns, domain, [{ host: `mx.${domain}`, ip: '127.0.0.1' }]);
  const second = await startServer(
    testConfig(env.ph.dataDir, { dns: env.ph.config.dns, delivery: env.ph.config.delivery }),
    createLogger('silent'),
  );
  t.teardown(() => second.stop());
  return { server: second } as unknown as DeliveryEnv['ph'];
}

const addresses = (n: number, domain: string) => Array.from({ length: n }, (_, i) => `r${i}@${domain}`);

test("a stop during a job's second chunk records the first chunk's recipients; only the rest are sent after a restart", async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: { drain_timeout: '500ms' } } });
  const held = await heldMx(t, '127.0.0.4', env.peer.port);
  mx(env.dns, 'chunks.example', [{ host: 'mx.chunks.example', ip: '127.0.0.4' }]);
  const to = addresses(130, 'chunks.example');
  const id = await send(env, { to: to.slice(0, 50), cc: to.slice(50) });
  await eventually('the second chunk to reach the MX', () => held.received.length === 2, 15_000);
  t.deepEqual(
    held.received.map((r) => r.length),
    [100, 30],
  );

  await env.ph.server.stop();
  const store = openStore(t, env);
  t.deepEqual(store.statuses(id), [
    { status: 'delivered', n: 100 },
    { status: 'queued', n: 30 },
  ]);
  t.deepEqual(store.eventCounts(id), [
    { type: 'email.delivered', n: 100 },
    { type: 'email.sent', n: 1 },
  ]);
  t.deepEqual(
    store.job(id),
    { state: 'queued', attempts: 0, locked_until: null, due: 1 },
    'back in the queue, due now',
  );

  const second = await restart(t, env, 'chunks.example');
  t.is(await settled(second, id, 15_000), 'delivered');
  t.deepEqual(
    env.peer.messages.map((m) => m.rcptTo),
    [held.received[1]],
    'only the recipients the stop cut off',
  );
  t.is(events(second, id).filter((e) => e.type === 'email.delivered').length, 130);
});

test('once stopping, a job starts no further chunk: the first is recorded, the rest go back', async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: { drain_timeout: '5s' } } });
  const held = await heldMx(t, '127.0.0.4', env.peer.port, { firstAfterMs: 1000 });
  mx(env.dns, 'chunks.example', [{ host: 'mx.chunks.example', ip: '127.0.0.4' }]);
  const to = addresses(101, 'chunks.example');
  const id = await send(env, { to: to.slice(0, 100), cc: to.slice(100) });
  await eventually('the first chunk to reach the MX', () => held.received.length === 1, 15_000);

  const stopping = Date.now();
  await env.ph.server.stop();
  t.true(Date.now() - stopping < 4000, 'the stop did not wait for a second chunk');
  t.is(held.answered, 1);
  t.is(held.received.length, 1, 'no second transaction was begun');
  const store = openStore(t, env);
  t.deepEqual(store.statuses(id), [
    { status: 'delivered', n: 100 },
    { status: 'queued', n: 1 },
  ]);
  t.deepEqual(store.job(id), { state: 'queued', attempts: 0, locked_until: null, due: 1 });
  t.deepEqual(store.eventCounts(id), [
    { type: 'email.delivered', n: 100 },
    { type: 'email.sent', n: 1 },
  ]);
});

test('a stop during a follow-up after "452 too many recipients" records what the first transaction delivered; the others go back untried', async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: { drain_timeout: '500ms' } } });
  const held = await heldMx(t, '127.0.0.4', env.peer.port, { maxRecipients: 2 });
  mx(env.dns, 'limit.example', [{ host: 'mx.limit.example', ip: '127.0.0.4' }]);
  const to = addresses(5, 'limit.example');
  const id = await send(env, { to });
  await eventually('the follow-up to reach the MX', () => held.received.length === 2, 15_000);

  await env.ph.server.stop();
  const store = openStore(t, env);
  // The first transaction delivered two and answered three with 452, which says nothing about
  // them: they go back with the job, due now, without a deferral or its event.
  t.deepEqual(store.statuses(id), [
    { status: 'delivered', n: 2 },
    { status: 'queued', n: 3 },
  ]);
  t.deepEqual(store.eventCounts(id), [
    { type: 'email.delivered', n: 2 },
    { type: 'email.sent', n: 1 },
  ]);
  t.deepEqual(store.job(id), { state: 'queued', attempts: 0, locked_until: null, due: 1 });

  const second = await restart(t, env, 'limit.example');
  t.is(await settled(second, id, 15_000), 'delivered');
  t.deepEqual(
    env.peer.messages.flatMap((m) => m.rcptTo),
    to.slice(2),
    'the two delivered before the stop are not sent again',
  );
});

test('once stopping, no follow-up starts after "452 too many recipients": those recipients go back untried', async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: { drain_timeout: '5s' } } });
  const held = await heldMx(t, '127.0.0.4', env.peer.port, { firstAfterMs: 1000, maxRecipients: 2 });
  mx(env.dns, 'limit.example', [{ host: 'mx.limit.example', ip: '127.0.0.4' }]);
  const id = await send(env, { to: addresses(5, 'limit.example') });
  await eventually('the first transaction to reach the MX', () => held.received.length === 1, 15_000);

  const stopping = Date.now();
  await env.ph.server.stop();
  t.true(Date.now() - stopping < 4000, 'the stop did not wait for a follow-up');
  t.is(held.received.length, 1, 'no follow-up transaction was begun');
  const store = openStore(t, env);
  t.deepEqual(store.statuses(id), [
    { status: 'delivered', n: 2 },
    { status: 'queued', n: 3 },
  ]);
  t.deepEqual(store.eventCounts(id), [
    { type: 'email.delivered', n: 2 },
    { type: 'email.sent', n: 1 },
  ]);
  t.deepEqual(store.job(id), { state: 'queued', attempts: 0, locked_until: null, due: 1 });
});
