import { Writable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import type { RunningServer } from '../../../src/server.js';
import { createLogger } from '../../../src/platform/log.js';
import { startServer } from '../../../src/server.js';
import { testConfig } from '../../helpers/server.js';
import { events, eventually, mx, rows, send, settled, startDeliveryEnv } from '../env.js';

/** A logger at info level whose JSON lines are kept for the test to read. */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: createLogger('info', sink), lines };
}

const asPosthorn = (server: RunningServer) => ({ server }) as unknown as Parameters<typeof settled>[0];

/** A message to a domain of the custom `partner` lane, deferred once (a 451) and waiting to retry. */
async function deferredInPartnerLane(t: ExecutionContext) {
  const partner = { name: 'partner', traffic: 'transactional', mx_suffixes: ['partner.example'] } as never;
  const env = await startDeliveryEnv(t, {
    config: { delivery: { lanes: [partner], retry_schedule: ['2s'] } },
  });
  mx(env.dns, 'partner.example', [{ host: 'mx.partner.example', ip: '127.0.0.1' }]);
  env.peer.dataReply(451, '4.3.0 Try again later', { times: 1 });
  const id = await send(env, { to: ['ann@partner.example'] });
  await eventually('the first attempt to be deferred', () =>
    events(env.ph, id).some((e) => e.type === 'email.delivery_delayed'),
  );
  return { env, id };
}

test('jobs of a lane removed from the config are routed again and delivered after a restart', async (t) => {
  const { env, id } = await deferredInPartnerLane(t);
  t.deepEqual(rows(env.ph, 'select state, lane, attempts from delivery_jobs where message_id = ?', id), [
    { state: 'queued', lane: 'partner', attempts: 1 },
  ]);
  await env.ph.server.stop();

  // The operator removes the custom lane; the deferred job still names it.
  const { log, lines } = recordingLogger();
  const second = await startServer(
    testConfig(env.ph.dataDir, {
      dns: env.ph.config.dns,
      delivery: { ...env.ph.config.delivery, lanes: [] },
    }),
    log,
  );
  t.teardown(() => second.stop());
  t.is(await settled(asPosthorn(second), id, 15_000), 'delivered');
  t.deepEqual(
    rows(asPosthorn(second), 'select state, lane, attempts from delivery_jobs where message_id = ?', id),
    [{ state: 'done', lane: 'default', attempts: 2 }],
  );
  t.deepEqual(
    events(asPosthorn(second), id).map((e) => e.type),
    ['email.sent', 'email.delivery_delayed', 'email.delivered'],
  );
  t.deepEqual(
    env.peer.messages.map((m) => m.reply.code),
    [451, 250],
  );
  t.like(
    lines.find((line) => line.msg === 'jobs of a lane no longer configured go back to the router'),
    { traffic: 'transactional', lane: 'partner', jobs: 1 },
  );
});

test('jobs of configured lanes keep their lane at a restart', async (t) => {
  const { env, id } = await deferredInPartnerLane(t);
  await env.ph.server.stop();

  const { log, lines } = recordingLogger();
  const second = await startServer(
    testConfig(env.ph.dataDir, { dns: env.ph.config.dns, delivery: env.ph.config.delivery }),
    log,
  );
  t.teardown(() => second.stop());
  t.is(await settled(asPosthorn(second), id, 15_000), 'delivered');
  t.deepEqual(rows(asPosthorn(second), 'select lane from delivery_jobs where message_id = ?', id), [
    { lane: 'partner' },
  ]);
  t.false(lines.some((line) => line.msg === 'jobs of a lane no longer configured go back to the router'));
});
