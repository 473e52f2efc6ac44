/**
 * A poison message never crash-loops the server: a file left in the spool that earlier runs of
 * the real `posthorn serve` process started and never finished (here they are SIGKILLed while
 * processing it, as an out-of-memory crash would end them) is given up on at the next start: a
 * `failed` receipt with the reason, and the file moved to `inbound/failed/`. Other left-over mail
 * is processed as usual. A message given up on is never deleted, even when its move to `failed/`
 * did not happen in the run that gave up on it, and its move is fsynced on both sides.
 */
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { stoppedSetup } from './stopped-setup.js';
import { createLogger } from '../../src/platform/log.js';
import type { InboundRecipient } from '../../src/inbound/listener/recipients.js';
import { openSpool } from '../../src/inbound/listener/spool.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';
import { eventually } from './env.js';
import { freePort, spawnServe } from './serve-process.js';
import { spoolMessage } from './spool-message.js';
import { query } from '../helpers/sql.js';

test('a left-over message that three runs started and never finished is recorded as failed and kept aside', async (t) => {
  t.timeout(120_000);
  const { dataDir, database, clamd, overrides, projectId, recipient } = await stoppedSetup(t, 'poison');
  const log = createLogger('silent');

  const spoolDir = join(dataDir, 'inbound', 'spool');
  const spool = await openSpool(spoolDir);
  const poison = await spoolMessage(spool, recipient, 'Poison');

  // Three runs of the real process start processing it (stalled on a resolver that never
  // answers) and die before they finish.
  const blackhole = createSocket('udp4');
  await new Promise<void>((resolve) => blackhole.bind(0, '127.0.0.1', () => resolve()));
  t.teardown(() => blackhole.close());
  const runsFile = join(spoolDir, `${poison}.runs`);
  for (const run of [1, 2, 3]) {
    const serve = await spawnServe({
      dataDir,
      database,
      smtpPort: await freePort(),
      dns: `127.0.0.1:${blackhole.address().port}`,
      clamdPort: clamd.port,
    });
    t.teardown(() => serve.child.kill('SIGKILL'));
    await eventually(
      () => (existsSync(runsFile) && readFileSync(runsFile, 'utf8') === String(run) ? true : undefined),
      20_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; posthorn said: ${serve.stderr()}`);
    });
    serve.child.kill('SIGKILL');
    t.is(await serve.exited, 'SIGKILL');
  }

  // The next start gives it up without processing it, and processes other left-over mail.
  await spoolMessage(spool, recipient, 'Fine');
  const restarted = await startServer(testConfig(dataDir, overrides), log);
  t.teardown(() => restarted.stop());
  await restarted.services.inbound.ready();
  await restarted.services.inbound.settled();

  const listed = await restarted.services.inbound.listEmails(projectId, { limit: 10 });
  t.deepEqual(
    listed.data.map((m) => m.subject),
    ['Fine'],
  );
  const [receipt] = (await query<{ kind: string; mail_from: string; outcome: string }>(
    restarted.kernel.store,
    'select kind, mail_from, outcome from inbound_receipts where id = ?',
    poison,
  )) as [{ kind: string; mail_from: string; outcome: string }];
  t.is(receipt.kind, 'failed');
  t.is(receipt.mail_from, 'ann@sender.example');
  t.regex(JSON.parse(receipt.outcome).failed, /started by 3 earlier runs/);
  t.deepEqual(readdirSync(spoolDir), []);
  t.deepEqual(readdirSync(join(dataDir, 'inbound', 'failed')), [`${poison}.eml`]);
  t.true(
    readFileSync(join(dataDir, 'inbound', 'failed', `${poison}.eml`), 'latin1').includes('Subject: Poison'),
  );
});

test('a left-over message one run started and did not finish is processed alone, so that a kill counts against it only', async (t) => {
  t.timeout(120_000);
  const { dataDir, database, clamd, recipient } = await stoppedSetup(t, 'poison-alone');
  const spoolDir = join(dataDir, 'inbound', 'spool');
  const spool = await openSpool(spoolDir);
  // Oldest first: the suspect is at the head of the queue, three healthy messages behind it.
  const suspect = await spoolMessage(spool, recipient, 'Suspect');
  writeFileSync(join(spoolDir, `${suspect}.runs`), '1');
  const healthy = [
    await spoolMessage(spool, recipient, 'One'),
    await spoolMessage(spool, recipient, 'Two'),
    await spoolMessage(spool, recipient, 'Three'),
  ];

  // The next run starts the suspect (stalled on a resolver that never answers) and nothing else.
  const blackhole = createSocket('udp4');
  await new Promise<void>((resolve) => blackhole.bind(0, '127.0.0.1', () => resolve()));
  t.teardown(() => blackhole.close());
  const serve = await spawnServe({
    dataDir,
    database,
    smtpPort: await freePort(),
    dns: `127.0.0.1:${blackhole.address().port}`,
    clamdPort: clamd.port,
  });
  t.teardown(() => serve.child.kill('SIGKILL'));
  const runsFile = join(spoolDir, `${suspect}.runs`);
  await eventually(() => (readFileSync(runsFile, 'utf8') === '2' ? true : undefined), 20_000).catch(
    (error: Error) => {
      throw new Error(`${error.message}; posthorn said: ${serve.stderr()}`);
    },
  );
  // Time for the healthy ones to have been started too, had they been allowed to.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  serve.child.kill('SIGKILL');
  t.is(await serve.exited, 'SIGKILL');

  // The kill counted against the suspect alone: the healthy messages were never started by it.
  for (const id of healthy) t.false(existsSync(join(spoolDir, `${id}.runs`)), `${id} was not started`);
});

test('a message given up on whose move to failed/ did not happen is moved there at the next start, never deleted', async (t) => {
  const { dataDir, overrides, recipient } = await stoppedSetup(t, 'poison-move');
  const log = createLogger('silent');
  const spoolDir = join(dataDir, 'inbound', 'spool');
  const failedDir = join(dataDir, 'inbound', 'failed');
  const poison = await spoolMessage(await openSpool(spoolDir), recipient, 'Poison');
  // What three runs that died processing it leave beside it (the test above has real ones die).
  writeFileSync(join(spoolDir, `${poison}.runs`), '3');
  // A file where the failed directory goes: the move fails once the failed receipt is committed,
  // as if the process had died between the two.
  writeFileSync(failedDir, 'in the way');

  const receipts = (server: RunningServer) =>
    query<{ kind: string }>(server.kernel.store, 'select kind from inbound_receipts where id = ?', poison);
  const first = await startServer(testConfig(dataDir, overrides), log);
  await first.services.inbound.ready();
  await eventually(async () => ((await receipts(first)).length > 0 ? true : undefined));
  await first.stop();
  t.true(existsSync(join(spoolDir, `${poison}.eml`)), 'the message is still in the spool');

  // The operator clears the way; the next start finishes what the last one began.
  rmSync(failedDir);
  const restarted = await startServer(testConfig(dataDir, overrides), log);
  t.teardown(() => restarted.stop());
  await restarted.services.inbound.ready();
  await restarted.services.inbound.settled();
  t.deepEqual(await receipts(restarted), [{ kind: 'failed' }]);
  t.deepEqual(readdirSync(spoolDir), []);
  t.deepEqual(existsSync(failedDir) ? readdirSync(failedDir) : [], [`${poison}.eml`]);
  t.true(readFileSync(join(failedDir, `${poison}.eml`), 'latin1').includes('Subject: Poison'));
});

test('a message given up on is fsynced into failed/ and out of the spool before its move resolves', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'posthorn-poison-fsync-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const recipient: InboundRecipient = { kind: 'complaint', address: 'complaints@acme.example' };
  const inboundDir = join(dataDir, 'inbound');
  const spoolDir = join(inboundDir, 'spool');
  const failedDir = join(inboundDir, 'failed');
  // The real directory fsync, with a note of each one and of where the message was at the time.
  const syncs: Array<{ dir: string; inSpool: boolean; inFailed: boolean }> = [];
  let name = '';
  const spool = await openSpool(spoolDir, async (dir) => {
    syncs.push({
      dir,
      inSpool: existsSync(join(spoolDir, name)),
      inFailed: existsSync(join(failedDir, name)),
    });
    const handle = await open(dir, 'r');
    await handle.sync().finally(() => handle.close());
  });
  const poison = await spoolMessage(spool, recipient, 'Poison');
  name = `${poison}.eml`;
  syncs.length = 0;

  await spool.moveToFailed(poison);
  t.deepEqual(syncs, [
    // failed/ was made by this move: its own name, in inbound/, first.
    { dir: inboundDir, inSpool: true, inFailed: false },
    { dir: failedDir, inSpool: false, inFailed: true },
    { dir: spoolDir, inSpool: false, inFailed: true },
  ]);
});
