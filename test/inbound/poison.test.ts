/**
 * A poison message never crash-loops the server, and is stored all the same: a message answered 250
 * that earlier runs of the real `posthorn serve` process started and never finished (here they are
 * SIGKILLed while processing it, as an out-of-memory crash would end them) is given up on at the
 * next start: stored without processing (envelope and header fields, the whole message kept as an
 * attachment never scanned nor downloadable, `processing: "failed"` in the API and in
 * `email.received`), a `failed` receipt with the reason, and the file moved to `inbound/failed/`;
 * it is never processed again. Other left-over mail is processed as usual. A message given up on is
 * never deleted, even when its move to `failed/` did not happen in the run that gave up on it, and
 * its move is fsynced on both sides.
 */
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { InboundRecipient } from '../../src/inbound/listener/recipients.js';
import { openSpool } from '../../src/inbound/listener/spool.js';
import { createLogger } from '../../src/platform/log.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';
import { query } from '../helpers/sql.js';
import { eventually, sendSmtp } from './env.js';
import { freePort, spawnServe, waitForPort } from './serve-process.js';
import { spoolMessage } from './spool-message.js';
import { stoppedSetup } from './stopped-setup.js';

test('a message answered 250 that three runs started and never finished is stored without processing, never processed again', async (t) => {
  t.timeout(180_000);
  const { dataDir, database, clamd, overrides, projectId, recipient } = await stoppedSetup(t, 'poison');
  const log = createLogger('silent');
  const spoolDir = join(dataDir, 'inbound', 'spool');
  const failedDir = join(dataDir, 'inbound', 'failed');

  // Runs of the real process stall processing it (on a resolver that never answers) and die
  // before they finish: the first takes it over SMTP, the next three start it again.
  const blackhole = createSocket('udp4');
  await new Promise<void>((resolve) => blackhole.bind(0, '127.0.0.1', () => resolve()));
  t.teardown(() => blackhole.close());
  const spawn = async () => {
    const smtpPort = await freePort();
    const serve = await spawnServe({
      dataDir,
      database,
      smtpPort,
      dns: `127.0.0.1:${blackhole.address().port}`,
      clamdPort: clamd.port,
    });
    t.teardown(() => serve.child.kill('SIGKILL'));
    return { serve, smtpPort };
  };
  const first = await spawn();
  await waitForPort(first.smtpPort);
  const sent = await sendSmtp(first.smtpPort, {
    from: 'ann@sender.example',
    to: recipient.address,
    subject: 'Poison',
    text: 'Hello.',
    attachments: [{ filename: 'report.pdf', content: Buffer.from('%PDF-1.4 not really') }],
  });
  t.regex(sent.response, /^250 /);
  const [file] = readdirSync(spoolDir).filter((name) => name.endsWith('.eml'));
  t.truthy(file, 'the message is in the spool');
  const poison = (file as string).slice(0, -'.eml'.length);
  first.serve.child.kill('SIGKILL');
  t.is(await first.serve.exited, 'SIGKILL');
  const runsFile = join(spoolDir, `${poison}.runs`);
  for (const run of [1, 2, 3]) {
    const { serve } = await spawn();
    await eventually(
      () => (existsSync(runsFile) && readFileSync(runsFile, 'utf8') === String(run) ? true : undefined),
      20_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; posthorn said: ${serve.stderr()}`);
    });
    serve.child.kill('SIGKILL');
    t.is(await serve.exited, 'SIGKILL');
  }
  const spooled = readFileSync(join(spoolDir, file as string));
  const raw = spooled.subarray(spooled.indexOf(0x0a) + 1);

  // The next start stores it without processing it, and processes other left-over mail.
  await spoolMessage(await openSpool(spoolDir), recipient, 'Fine');
  const restarted = await startServer(testConfig(dataDir, overrides), log);
  t.teardown(() => restarted.stop());
  await restarted.services.inbound.ready();
  await restarted.services.inbound.settled();
  const key = (
    await restarted.services.keys.create({ projectId, scopes: ['full_access'], mode: 'live' }, 'test')
  ).key;
  const api = async (path: string) => {
    const res = await fetch(`${restarted.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const text = await res.text();
    return {
      status: res.status,
      body: (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text,
    };
  };

  const listed = await api('/v1/inbound/emails');
  t.deepEqual(
    listed.body.data.map((m: { subject: string }) => m.subject),
    ['Fine', 'Poison'],
  );
  const [fine, stored] = listed.body.data as Array<{ id: string }>;
  const email = await api(`/v1/inbound/emails/${(stored as { id: string }).id}`);
  t.is(email.status, 200);
  t.is(email.body.processing, 'failed');
  t.regex(email.body.processing_error, /started by 3 earlier runs/);
  t.is(email.body.subject, 'Poison');
  t.is(email.body.from, 'ann@sender.example');
  t.deepEqual(email.body.to, [recipient.address]);
  t.deepEqual(email.body.envelope.mail_from, 'ann@sender.example');
  t.deepEqual(email.body.envelope.rcpt_to, [recipient.address]);
  t.is(email.body.size_bytes, raw.length);
  // Not parsed, not authenticated: no text, no attachment taken out of it.
  t.is(email.body.text, null);
  t.is(email.body.html, null);
  t.is(email.body.auth.dmarc, null);
  // The raw message is kept whole, never scanned, never offered for download.
  t.is(email.body.attachments.length, 1);
  const [original] = email.body.attachments;
  t.like(original, {
    filename: 'original.eml',
    content_type: 'message/rfc822',
    size_bytes: raw.length,
    sha256: createHash('sha256').update(raw).digest('hex'),
    scan_state: 'error',
    download_url: null,
  });
  t.is((await api(`/v1/inbound/attachments/${original.id}/download`)).status, 404);
  t.like((await api(`/v1/inbound/emails/${(fine as { id: string }).id}`)).body, {
    processing: 'complete',
    processing_error: null,
  });

  // email.received tells a receiver it was stored without processing.
  const received = async () =>
    (
      await query<{ data: string }>(
        restarted.kernel.store,
        "select data from events where type = 'email.received' order by id",
      )
    ).map((row) => JSON.parse(row.data) as Record<string, unknown>);
  const events = await received();
  t.is(events.length, 2);
  const event = events.find((e) => e.email_id === email.body.id);
  t.like(event, { subject: 'Poison', processing: 'failed' });
  t.regex(String(event?.processing_error), /started by 3 earlier runs/);
  t.false('processing' in (events.find((e) => e.email_id !== email.body.id) ?? {}));

  const receiptOf = async (server: RunningServer) =>
    (await query<{ kind: string; mail_from: string; outcome: string }>(
      server.kernel.store,
      'select kind, mail_from, outcome from inbound_receipts where id = ?',
      poison,
    )) as [{ kind: string; mail_from: string; outcome: string }];
  const [receipt] = await receiptOf(restarted);
  t.is(receipt.kind, 'failed');
  t.is(receipt.mail_from, 'ann@sender.example');
  t.regex(JSON.parse(receipt.outcome).failed, /started by 3 earlier runs/);
  t.deepEqual(JSON.parse(receipt.outcome).received, { [projectId]: email.body.id });
  t.deepEqual(readdirSync(spoolDir), []);
  t.deepEqual(readdirSync(failedDir), [file]);
  t.deepEqual(readFileSync(join(failedDir, file as string)), spooled);

  // The next start neither processes it again nor stores it twice.
  await restarted.stop();
  const again = await startServer(testConfig(dataDir, overrides), log);
  t.teardown(() => again.stop());
  await again.services.inbound.ready();
  await again.services.inbound.settled();
  t.deepEqual(
    (await again.services.inbound.listEmails(projectId, { limit: 10 })).data.map((m) => m.subject),
    ['Fine', 'Poison'],
  );
  t.deepEqual(await receiptOf(again), [receipt]);
  t.is((await again.services.inbound.getEmail(projectId, email.body.id)).processing, 'failed');
  t.deepEqual(readdirSync(failedDir), [file]);
});

test('a left-over that a run died giving up on is recorded as failed alone, not stored: giving up never loops', async (t) => {
  const { dataDir, overrides, projectId, recipient } = await stoppedSetup(t, 'poison-twice');
  const spoolDir = join(dataDir, 'inbound', 'spool');
  const poison = await spoolMessage(await openSpool(spoolDir), recipient, 'Poison');
  // Four runs died with it: the fourth while storing it without processing.
  writeFileSync(join(spoolDir, `${poison}.runs`), '4');
  const server = await startServer(testConfig(dataDir, overrides), createLogger('silent'));
  t.teardown(() => server.stop());
  await server.services.inbound.ready();
  await server.services.inbound.settled();
  t.deepEqual((await server.services.inbound.listEmails(projectId, { limit: 10 })).data, []);
  const receipts = await query<{ kind: string; outcome: string }>(
    server.kernel.store,
    'select kind, outcome from inbound_receipts where id = ?',
    poison,
  );
  t.is(receipts[0]?.kind, 'failed');
  t.regex(JSON.parse(receipts[0]?.outcome ?? '{}').failed, /started by 4 earlier runs/);
  t.deepEqual(readdirSync(join(dataDir, 'inbound', 'failed')), [`${poison}.eml`]);
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
  const { dataDir, overrides, projectId, recipient } = await stoppedSetup(t, 'poison-move');
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
  // Stored once, by the run that gave it up; the next start only moved its file.
  t.deepEqual(
    (await restarted.services.inbound.listEmails(projectId, { limit: 10 })).data.map((m) => m.subject),
    ['Poison'],
  );
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
