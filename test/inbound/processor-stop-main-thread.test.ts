/**
 * With `smtp_in.workers = 0` received mail is analysed on the main thread, so a DNS lookup the stop
 * abandoned is the serving process's own: it must not keep that process alive. The real `posthorn
 * serve`, its analysis of a left-over message stalled on a resolver that never answers (with a
 * 120 s timeout), exits on SIGTERM within seconds, with exit code 0, the message left in the spool.
 */
import { createSocket } from 'node:dgram';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { openSpool } from '../../src/inbound/listener/spool.js';
import { eventually } from './env.js';
import { freePort, spawnServe } from './serve-process.js';
import { spoolMessage } from './spool-message.js';
import { stoppedSetup } from './stopped-setup.js';

const STOP_WITHIN_MS = 12_000;

test('with workers = 0, a stop that abandons analysis waiting on DNS still lets the process exit', async (t) => {
  t.timeout(90_000);
  const { dataDir, database, clamd, recipient } = await stoppedSetup(t, 'main-thread-stop');
  const spoolDir = join(dataDir, 'inbound', 'spool');
  const held = await spoolMessage(await openSpool(spoolDir), recipient, 'Held at the stop');
  const blackhole = createSocket('udp4');
  await new Promise<void>((resolve) => blackhole.bind(0, '127.0.0.1', () => resolve()));
  t.teardown(() => blackhole.close());

  const serve = await spawnServe({
    dataDir,
    database,
    smtpPort: await freePort(),
    dns: `127.0.0.1:${blackhole.address().port}`,
    clamdPort: clamd.port,
    dnsTimeoutMs: 120_000,
    workers: 0,
  });
  t.teardown(() => serve.child.kill('SIGKILL'));
  await eventually(() => (existsSync(join(spoolDir, `${held}.runs`)) ? true : undefined), 20_000).catch(
    (error: Error) => {
      throw new Error(`${error.message}; posthorn said: ${serve.stderr()}`);
    },
  );

  const stopping = Date.now();
  serve.child.kill('SIGTERM');
  const signal = await Promise.race([
    serve.exited,
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), STOP_WITHIN_MS)),
  ]);
  t.is(signal, null, `exited by itself within ${STOP_WITHIN_MS} ms; posthorn said: ${serve.stderr()}`);
  t.is(serve.child.exitCode, 0, serve.stderr());
  t.true(Date.now() - stopping < STOP_WITHIN_MS);
  t.deepEqual(readdirSync(spoolDir), [`${held}.eml`], 'the message waits for the next start');
});
