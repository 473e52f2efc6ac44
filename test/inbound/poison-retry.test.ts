/**
 * An operator retries a message stored without processing: `posthorn inbound retry <id>` parses
 * and authenticates it in the command's own process and replaces the stored message in place (same
 * ID), its attachments then scanned by the server like any other, and `email.received` fires again
 * with `processing: "complete"`. A message that is not stored without processing is refused.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { openSpool } from '../../src/inbound/listener/spool.js';
import { newId } from '../../src/platform/ids.js';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { BIN, type CliResult } from '../helpers/cli.js';
import { testConfig } from '../helpers/server.js';
import { query } from '../helpers/sql.js';
import { stoppedSetup } from './stopped-setup.js';

const raw = [
  'From: Ann <ann@sender.example>',
  'To: support@acme.example',
  'Subject: Poison',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Hello.',
  '--b1',
  'Content-Type: application/pdf; name="report.pdf"',
  'Content-Disposition: attachment; filename="report.pdf"',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('%PDF-1.4 not really').toString('base64'),
  '--b1--',
  '',
].join('\r\n');

function posthorn(args: readonly string[]): Promise<CliResult> {
  // The test's own POSTHORN_ variables (POSTHORN_TEST_ENGINE, ...) are no keys of the command's config.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('POSTHORN_')));
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('an operator retries a message stored without processing: it is processed in place, scanned, and announced again', async (t) => {
  t.timeout(120_000);
  const { dataDir, database, dns, overrides, projectId, recipient } = await stoppedSetup(t, 'poison-retry');
  const log = createLogger('silent');
  const spoolDir = join(dataDir, 'inbound', 'spool');
  const receipt = newId('rcv');
  await (await openSpool(spoolDir)).write(
    {
      id: receipt,
      receivedAt: Date.now(),
      mailFrom: 'ann@sender.example',
      recipients: [recipient],
      remoteIp: '127.0.0.1',
      helo: 'client.example',
      clientHostname: 'client.example',
      tls: false,
    },
    [Buffer.from(raw)],
  );
  // What three runs that died processing it leave beside it (poison.test.ts has real ones die).
  writeFileSync(join(spoolDir, `${receipt}.runs`), '3');

  const first = await startServer(testConfig(dataDir, overrides), log);
  await first.services.inbound.ready();
  await first.services.inbound.settled();
  const [listed] = (await first.services.inbound.listEmails(projectId, { limit: 10 })).data;
  const id = listed?.id as string;
  const before = await first.services.inbound.getEmail(projectId, id);
  t.is(before.processing, 'failed');
  t.deepEqual(
    before.attachments.map((a) => a.filename),
    ['original.eml'],
  );
  await first.stop();

  const config = join(dataDir, 'retry.toml');
  writeFileSync(
    config,
    [
      '[storage]',
      `data_dir = "${dataDir}"`,
      ...(database === undefined ? [] : ['engine = "postgresql"', `url = "${database}"`, 'pool_size = 2']),
      '[dns]',
      `servers = ["${dns.address}"]`,
      '[log]',
      'level = "silent"',
    ].join('\n'),
  );
  const retried = await posthorn(['inbound', 'retry', id, '--config', config, '--json']);
  t.is(retried.code, 0, retried.stderr);
  t.deepEqual(JSON.parse(retried.stdout), { id, processing: 'complete', attachments: 1 });

  const server = await startServer(testConfig(dataDir, overrides), log);
  t.teardown(() => server.stop());
  await server.services.inbound.ready();
  await server.services.inbound.scanNow();
  const after = await server.services.inbound.getEmail(projectId, id);
  t.like(after, {
    id,
    subject: 'Poison',
    processing: 'complete',
    processing_error: null,
    thread_id: before.thread_id,
  });
  t.is(after.text?.trim(), 'Hello.');
  t.is(after.from, '"Ann" <ann@sender.example>');
  t.truthy(after.auth.authentication_results);
  t.is(after.attachments.length, 1);
  t.like(after.attachments[0], { filename: 'report.pdf', scan_state: 'clean' });
  t.truthy(after.attachments[0]?.download_url);
  const file = await server.services.inbound.download(projectId, after.attachments[0]?.id as string);
  t.is(Buffer.from(file.content).toString(), '%PDF-1.4 not really');

  const events = (
    await query<{ data: string }>(
      server.kernel.store,
      "select data from events where type = 'email.received' order by id",
    )
  ).map((row) => JSON.parse(row.data) as Record<string, unknown>);
  t.deepEqual(
    events.map((e) => [e.email_id, e.processing]),
    [
      [id, 'failed'],
      [id, 'complete'],
    ],
  );
  t.deepEqual(
    ((events[1]?.attachments ?? []) as Array<{ filename: string }>).map((a) => a.filename),
    ['report.pdf'],
  );

  // Done once: a message processed is no longer one to retry.
  const again = await posthorn(['inbound', 'retry', id, '--config', config]);
  t.is(again.code, 1);
  t.regex(again.stderr, /stored without processing was not found/);
});
