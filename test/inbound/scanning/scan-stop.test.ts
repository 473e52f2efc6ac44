/**
 * A stop does not wait for a clamd that hangs: the real `posthorn serve` process, its attachment
 * scan in flight against a clamd that took the stream and never answers, exits on SIGTERM well
 * within `clamav.timeout_ms` (30 s, the unit's whole TimeoutStopSec) and exit code 0. The scan's
 * connection is destroyed and the attachment left `pending`, no attempt counted: the next start
 * scans it once, and the message is stored once. The scan is ended when the stop begins, beside
 * the SMTP listener's grace, not after it.
 */
import test from 'ava';
import { openPostgresStore, openStore } from '../../../src/platform/db/database.js';
import { createLogger } from '../../../src/platform/log.js';
import { startServer } from '../../../src/server.js';
import { controlledClamd } from '../../helpers/fake-clamd.js';
import { testConfig } from '../../helpers/server.js';
import { query } from '../../helpers/sql.js';
import { DOMAIN, eventually, sendSmtp } from '../env.js';
import { freePort, spawnServe, waitForPort } from '../serve-process.js';
import { openSmtp } from '../smtp-client.js';
import { stoppedSetup } from '../stopped-setup.js';

/** Far below the default `clamav.timeout_ms` (30 s) that a scan in flight used to add to a stop. */
const STOP_WITHIN_MS = 10_000;

const withReport = {
  from: 'ann@sender.example',
  to: `support@${DOMAIN}`,
  subject: 'Scanned at the stop',
  text: 'The report is attached.',
  attachments: [{ filename: 'report.txt', content: 'Quarterly figures.\n' }],
};

test('a stop aborts an attachment scan that clamd never answers; the next start scans it once', async (t) => {
  t.timeout(90_000);
  const { dataDir, database, dns, overrides, projectId } = await stoppedSetup(t, 'scan-stop');
  const clamd = await controlledClamd(undefined);
  t.teardown(() => clamd.close());
  const smtpPort = await freePort();
  const { child, exited, stderr } = await spawnServe({
    dataDir,
    database,
    smtpPort,
    dns: dns.address,
    clamdPort: clamd.port,
  });
  t.teardown(() => child.kill('SIGKILL'));
  await waitForPort(smtpPort).catch((error: Error) => {
    throw new Error(`${error.message}; posthorn said: ${stderr()}`);
  });
  const info = await sendSmtp(smtpPort, withReport);
  t.regex(info.response, /^250 /);
  // The message is stored and its attachment's scan is in flight: clamd has the whole stream.
  await eventually(() => (clamd.scans() === 1 ? true : undefined), 20_000);

  const stopping = Date.now();
  child.kill('SIGTERM');
  const signal = await Promise.race([
    exited,
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), STOP_WITHIN_MS)),
  ]);
  t.is(signal, null, `exited by itself within ${STOP_WITHIN_MS} ms; posthorn said: ${stderr()}`);
  t.is(child.exitCode, 0, stderr());
  t.true(Date.now() - stopping < STOP_WITHIN_MS);

  // Neither a verdict nor an attempt: the abort says nothing about the attachment.
  t.deepEqual(await attachmentScans(dataDir, database), [
    { scan_state: 'pending', scan_attempts: 0, scan_detail: null },
  ]);

  // The next start, with clamd answering again, scans it once; the message was stored once.
  clamd.answer('stream: OK');
  const restarted = await startServer(
    testConfig(dataDir, { ...overrides, clamav: { host: '127.0.0.1', port: clamd.port } }),
    createLogger('silent'),
  );
  t.teardown(() => restarted.stop());
  await restarted.services.inbound.ready();
  await restarted.services.inbound.scanNow();
  t.deepEqual(await attachmentScans(dataDir, database), [
    { scan_state: 'clean', scan_attempts: 0, scan_detail: null },
  ]);
  t.is(clamd.scans(), 2, 'one scan aborted at the stop, one at the next start');
  const listed = await restarted.services.inbound.listEmails(projectId, { limit: 10 });
  t.deepEqual(
    listed.data.map((email) => email.subject),
    ['Scanned at the stop'],
  );
});

test('the scan in flight ends when the stop begins, while the SMTP listener still waits for a session', async (t) => {
  const { dataDir, database, overrides } = await stoppedSetup(t, 'scan-stop-beside');
  const clamd = await controlledClamd(undefined);
  t.teardown(() => clamd.close());
  const server = await startServer(
    testConfig(dataDir, {
      ...overrides,
      server: { shutdown_timeout: '2s' },
      clamav: { host: '127.0.0.1', port: clamd.port },
    }),
    createLogger('silent'),
  );
  let stopped = false;
  t.teardown(() => (stopped ? undefined : server.stop()));
  const { port } = await server.services.inbound.ready();
  t.regex((await sendSmtp(port, withReport)).response, /^250 /);
  await eventually(() => (clamd.scans() === 1 ? true : undefined), 20_000);
  t.is(clamd.connections(), 1, 'the scan holds its connection to clamd');
  // A client that stays connected holds the listener for all of shutdown_timeout.
  const smtp = await openSmtp(port);
  t.teardown(() => smtp.end());
  t.is((await smtp.command('EHLO client.example')).code, 250);

  const begun = Date.now();
  const stopping = server.stop().then(() => {
    stopped = true;
  });
  await eventually(() => (clamd.connections() === 0 ? true : undefined), 1_500);
  t.false(stopped, 'the listener is still waiting for its session');
  t.true(Date.now() - begun < 1_500, 'the scan was ended at the start of the stop');
  await stopping;
  t.regex((await smtp.next()).text, /^421 /);
  t.deepEqual(await attachmentScans(dataDir, database), [
    { scan_state: 'pending', scan_attempts: 0, scan_detail: null },
  ]);
});

/** The attachments' scan columns, read with a connection of the test's own (the server may be stopped). */
async function attachmentScans(dataDir: string, database: string | undefined): Promise<unknown[]> {
  const store =
    database === undefined
      ? openStore(dataDir)
      : openPostgresStore({ url: database, password_file: '', pool_size: 1 });
  try {
    return await query(store, 'select scan_state, scan_attempts, scan_detail from inbound_attachments');
  } finally {
    await store.close();
  }
}
