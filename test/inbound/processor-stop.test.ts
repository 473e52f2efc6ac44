/**
 * A stop does not wait without end for received mail whose processing hangs: the real
 * `posthorn serve` process, its analysis of a left-over message stalled on a resolver that never
 * answers, exits on SIGTERM a few seconds after its listener closed, with exit code 0. The message
 * stays in the spool, and a clean stop does not count as a run that crashed on it (its `.runs`
 * count is taken back): after two such stops the next start processes it, once, instead of giving
 * it up as poison (`poison.test.ts` has the SIGKILLed runs that do count).
 */
import { createSocket } from 'node:dgram';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { openSpool } from '../../src/inbound/listener/spool.js';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';
import { eventually } from './env.js';
import { freePort, spawnServe } from './serve-process.js';
import { spoolMessage } from './spool-message.js';
import { stoppedSetup } from './stopped-setup.js';
import { query } from '../helpers/sql.js';

/** The processor's bound (5 s) and the rest of the stop, far below a DNS query's 120 s here. */
const STOP_WITHIN_MS = 12_000;

test('a stop leaves a message whose processing hangs for the next start, which processes it once', async (t) => {
  t.timeout(120_000);
  const { dataDir, database, clamd, overrides, projectId, recipient } = await stoppedSetup(
    t,
    'processor-stop',
  );
  const spoolDir = join(dataDir, 'inbound', 'spool');
  const held = await spoolMessage(await openSpool(spoolDir), recipient, 'Held at the stop');
  const runsFile = join(spoolDir, `${held}.runs`);

  const blackhole = createSocket('udp4');
  await new Promise<void>((resolve) => blackhole.bind(0, '127.0.0.1', () => resolve()));
  t.teardown(() => blackhole.close());
  // Two runs in a row start processing it (counted, then stalled in authentication) and are stopped.
  for (const run of [1, 2]) {
    const serve = await spawnServe({
      dataDir,
      database,
      smtpPort: await freePort(),
      dns: `127.0.0.1:${blackhole.address().port}`,
      clamdPort: clamd.port,
      dnsTimeoutMs: 120_000,
    });
    t.teardown(() => serve.child.kill('SIGKILL'));
    await eventually(() => (existsSync(runsFile) ? true : undefined), 20_000).catch((error: Error) => {
      throw new Error(`${error.message}; posthorn said: ${serve.stderr()}`);
    });

    const stopping = Date.now();
    serve.child.kill('SIGTERM');
    const signal = await Promise.race([
      serve.exited,
      new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), STOP_WITHIN_MS)),
    ]);
    t.is(
      signal,
      null,
      `run ${run} exited by itself within ${STOP_WITHIN_MS} ms; posthorn said: ${serve.stderr()}`,
    );
    t.is(serve.child.exitCode, 0, serve.stderr());
    t.true(Date.now() - stopping < STOP_WITHIN_MS);
    t.deepEqual(
      readdirSync(spoolDir),
      [`${held}.eml`],
      `run ${run}: the message is left, its run not counted`,
    );
  }

  // The next start, with DNS answering, processes it as any left-over mail: once, not given up on.
  const restarted = await startServer(testConfig(dataDir, overrides), createLogger('silent'));
  t.teardown(() => restarted.stop());
  await restarted.services.inbound.ready();
  await restarted.services.inbound.settled();
  const listed = await restarted.services.inbound.listEmails(projectId, { limit: 10 });
  t.deepEqual(
    listed.data.map((email) => email.subject),
    ['Held at the stop'],
  );
  const receipts = await query(
    restarted.kernel.store,
    'select kind from inbound_receipts where id = ?',
    held,
  );
  t.deepEqual(receipts, [{ kind: 'routed' }]);
  t.deepEqual(readdirSync(spoolDir), []);
  t.false(existsSync(join(dataDir, 'inbound', 'failed')));
});
