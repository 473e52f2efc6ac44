/**
 * A spool disk with no room left: the real `posthorn serve` process runs with a tmpfs of 32 KB
 * as its spool directory (its own mount, `spawnServe`'s `spoolDiskBytes`), so the kernel itself
 * answers ENOSPC. A message that does not fit is answered 452 4.3.1 (insufficient system storage,
 * RFC 5321 §4.2.3 and RFC 3463 X.3.1), whether the disk fills while it arrives or at its commit,
 * and leaves nothing behind; the next one that fits is taken.
 */
import { readdirSync } from 'node:fs';
import test from 'ava';
import { spoolFailure } from '../../../src/inbound/listener/smtp-error.js';
import { createLogger } from '../../../src/platform/log.js';
import { startServer } from '../../../src/server.js';
import { testConfig } from '../../helpers/server.js';
import { DOMAIN, eventually } from '../env.js';
import { freePort, spawnServe, spoolSeenBy, waitForPort } from '../serve-process.js';
import { sendRaw } from '../smtp-client.js';
import { stoppedSetup } from '../stopped-setup.js';

const SPOOL_DISK_BYTES = 32 * 1024;

/** A message of about `bytes`, in lines of 76 characters. */
const message = (subject: string, bytes: number) =>
  `From: ann@sender.example\nTo: support@${DOMAIN}\nSubject: ${subject}\n\n${'x'
    .repeat(76)
    .concat('\n')
    .repeat(Math.ceil(bytes / 77))}`;

test('a spool disk without room answers 452 4.3.1 and keeps nothing; a message that fits is taken', async (t) => {
  t.timeout(60_000);
  const { dataDir, database, dns, clamd, overrides, projectId } = await stoppedSetup(t, 'disk-full');
  const smtpPort = await freePort();
  const { child, exited, stderr } = await spawnServe({
    dataDir,
    database,
    smtpPort,
    dns: dns.address,
    clamdPort: clamd.port,
    spoolDiskBytes: SPOOL_DISK_BYTES,
  });
  t.teardown(() => child.kill('SIGKILL'));
  await waitForPort(smtpPort).catch((error: Error) => {
    throw new Error(
      `${error.message}; posthorn (run by unshare(1), which needs user namespaces) said: ${stderr()}`,
    );
  });
  const spool = spoolSeenBy(child.pid as number, dataDir);
  const send = (subject: string, bytes: number) =>
    sendRaw(smtpPort, 'ann@sender.example', [`support@${DOMAIN}`], message(subject, bytes));

  // Larger than the disk: the disk fills while the message arrives (written 64 KB at a time).
  t.regex((await send('Larger than the disk', 8 * SPOOL_DISK_BYTES)).text, /^452 4\.3\.1 /);
  t.deepEqual(readdirSync(spool), [], 'the partial file is removed, and its room with it');
  // Under 64 KB, so gathered until the end of DATA: the disk fills at the commit.
  t.regex((await send('Fills the disk at the commit', SPOOL_DISK_BYTES + 8 * 1024)).text, /^452 4\.3\.1 /);
  t.deepEqual(readdirSync(spool), []);
  t.is((await send('Fits', 2 * 1024)).code, 250);
  await eventually(() => (readdirSync(spool).length === 0 ? true : undefined), 20_000);

  child.kill('SIGTERM');
  await exited;
  const restarted = await startServer(testConfig(dataDir, overrides), createLogger('silent'));
  t.teardown(() => restarted.stop());
  const listed = await restarted.services.inbound.listEmails(projectId, { limit: 10 });
  t.deepEqual(
    listed.data.map((email) => email.subject),
    ['Fits'],
  );
});

test('a failed spool write is answered 452 4.3.1 for a full disk or quota, 451 4.3.0 otherwise', (t) => {
  const cases: Array<[string | undefined, number, string]> = [
    ['ENOSPC', 452, '4.3.1'],
    ['EDQUOT', 452, '4.3.1'],
    ['EIO', 451, '4.3.0'],
    ['EACCES', 451, '4.3.0'],
    [undefined, 451, '4.3.0'],
  ];
  for (const [code, reply, enhanced] of cases) {
    const error = spoolFailure(Object.assign(new Error('spool write failed'), { code }));
    t.is(error.responseCode, reply, String(code));
    t.true(error.message.startsWith(`${enhanced} `), String(code));
  }
});
