/**
 * A message is durable before the listener says 250: the real `posthorn serve` process is killed
 * with SIGKILL right after the 250 (while processing is stalled on DNS), and the next start
 * processes the spooled message. A spool file whose effects were already committed is removed
 * without storing the message twice.
 */
import { createSocket } from 'node:dgram';
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { stoppedSetup } from './stopped-setup.js';
import { testConfig } from '../helpers/server.js';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { DOMAIN, sendSmtp } from './env.js';
import { freePort, spawnServe, waitForPort } from './serve-process.js';

test('a message acknowledged with 250 survives a SIGKILL and is processed on the next start', async (t) => {
  // 1. An operator's setup: a project, a verified domain, a route.
  const { dataDir, database, clamd, overrides, projectId } = await stoppedSetup(t, 'durable');
  const log = createLogger('silent');

  // 2. The real process, with a resolver that never answers, so processing stalls after the 250.
  const blackhole = createSocket('udp4');
  await new Promise<void>((resolve) => blackhole.bind(0, '127.0.0.1', () => resolve()));
  t.teardown(() => blackhole.close());
  const smtpPort = await freePort();
  const { child, exited, stderr } = await spawnServe({
    dataDir,
    database,
    smtpPort,
    dns: `127.0.0.1:${blackhole.address().port}`,
    clamdPort: clamd.port,
  });
  t.teardown(() => child.kill('SIGKILL'));
  await waitForPort(smtpPort).catch((error: Error) => {
    throw new Error(`${error.message}; posthorn said: ${stderr()}`);
  });
  const info = await sendSmtp(smtpPort, {
    from: 'ann@sender.example',
    to: `support@${DOMAIN}`,
    subject: 'Survives a crash',
    text: 'Written down before the 250.',
  });
  child.kill('SIGKILL');
  t.regex(info.response, /^250 /);
  t.is(await exited, 'SIGKILL');

  const spoolDir = join(dataDir, 'inbound', 'spool');
  const spooled = readdirSync(spoolDir).filter((name) => name.endsWith('.eml'));
  t.is(spooled.length, 1);
  const spoolFile = join(spoolDir, spooled[0] as string);
  t.true(readFileSync(spoolFile, 'latin1').includes('Subject: Survives a crash'));
  const saved = join(dataDir, 'spool-copy.eml');
  copyFileSync(spoolFile, saved);

  // 3. The next start finds it and processes it.
  const restarted = await startServer(testConfig(dataDir, overrides), log);
  await restarted.services.inbound.ready();
  await restarted.services.inbound.settled();
  const listed = await restarted.services.inbound.listEmails(projectId, { limit: 10 });
  t.deepEqual(
    listed.data.map((m) => m.subject),
    ['Survives a crash'],
  );
  t.deepEqual(readdirSync(spoolDir), []);

  // 4. A spool file whose effects were committed (a crash between commit and removal) is only removed.
  await restarted.stop();
  copyFileSync(saved, spoolFile);
  const again = await startServer(testConfig(dataDir, overrides), log);
  t.teardown(() => again.stop());
  await again.services.inbound.ready();
  await again.services.inbound.settled();
  t.is((await again.services.inbound.listEmails(projectId, { limit: 10 })).data.length, 1);
  t.deepEqual(readdirSync(spoolDir), []);
});
