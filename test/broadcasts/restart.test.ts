/**
 * A restart in the middle of a broadcast: the real `posthorn serve` process is killed (SIGKILL,
 * no goodbye) while it sends a 3,000-contact broadcast to a real SMTP server on loopback, or while
 * it prepares one scheduled ahead, then started again on the same data directory. Every contact
 * gets the broadcast, and none gets two different messages of it (an SMTP transaction the kill cut
 * after the server's 250 may be sent again, the same message: at-least-once delivery, as any MTA).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { BIN } from '../helpers/cli.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { testConfig } from '../helpers/server.js';
import { startSmtpPeer } from '../helpers/smtp-peer.js';
import { freePort, waitForPort } from '../inbound/serve-process.js';
import { CONSENT, until } from './env.js';

const CONTACTS = 3000;

type Moment = 'sending' | 'preparing';

test('a broadcast killed midway resumes after the restart: every contact gets it, none two messages', (t) =>
  killMidway(t, 'sending'));

test('a broadcast killed while it is prepared ahead resumes its preparation after the restart and sends every contact the prepared message once', (t) =>
  killMidway(t, 'preparing'));

async function killMidway(t: ExecutionContext, moment: Moment): Promise<void> {
  // Seconds on a quiet host; generous bounds for a host shared by many test runs.
  t.timeout(600_000);
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  const dataDir = mkdtempSync(join(tmpdir(), 'posthorn-restart-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  dns.set('mx.example.net', 'A', ['127.0.0.1']);
  dns.set('example.net', 'MX', [{ preference: 10, exchange: 'mx.example.net' }]);
  dns.set('mta.posthorn.test', 'A', ['127.0.0.1']);

  // Set up with the server in this process (no delivery), as an operator and an API user would.
  const setup = await startServer(
    testConfig(dataDir, {
      dns: { servers: [dns.address], timeout_ms: 1000 },
      delivery: { enabled: false, hostname: 'mta.posthorn.test' },
    }),
    createLogger('silent'),
  );
  const owner = await setup.services.projects.bootstrap(
    { email: 'o@example.test', organization: 'O', project: 'P' },
    't',
  );
  const key = (
    await setup.services.keys.create(
      { projectId: owner.projectId, scopes: ['full_access'], mode: 'live' },
      't',
    )
  ).key;
  const api = async (
    base: string,
    method: string,
    path: string,
    body?: unknown,
    type = 'application/json',
  ) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': type },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const domain = await api(setup.url, 'POST', '/v1/domains', { name: 'acme.test' });
  for (const record of domain.body.records as {
    type: string;
    host: string;
    value: string;
    value_strings?: string[];
  }[]) {
    if (record.type === 'TXT') dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
  }
  const verified = await api(setup.url, 'POST', `/v1/domains/${domain.body.id}/verify`);
  if (verified.body.status !== 'verified')
    throw new Error(`domain not verified: ${JSON.stringify(verified.body)}`);
  const audience = (await api(setup.url, 'POST', '/v1/audiences', { name: 'Everyone' })).body.id;
  const lines = Array.from({ length: CONTACTS }, (_, i) =>
    JSON.stringify({ email: `c${i}@example.net`, ...CONSENT }),
  );
  const imported = await api(
    setup.url,
    'POST',
    `/v1/audiences/${audience}/contacts/import`,
    lines.join('\n'),
    'application/x-ndjson',
  );
  t.is(imported.body.created, CONTACTS);
  const broadcast = await api(setup.url, 'POST', '/v1/broadcasts', {
    audience_id: audience,
    from: 'News <news@acme.test>',
    subject: 'Hello {{email}}',
    text: 'Hi',
  });
  t.is(broadcast.status, 201);
  await setup.stop();

  const port = await freePort();
  const configFile = join(dataDir, 'config.toml');
  writeFileSync(
    configFile,
    [
      '[server]',
      `listen = "127.0.0.1:${port}"`,
      '[storage]',
      `data_dir = "${dataDir}"`,
      '[smtp_in]',
      'enabled = false',
      '[dns]',
      `servers = ["${dns.address}"]`,
      '[delivery]',
      'enabled = true',
      'hostname = "mta.posthorn.test"',
      `port = ${peer.port}`,
      'sending_ips = ["127.0.0.1"]',
      'poll_interval = "200ms"',
      // Jobs the killed process held come back after this (the default is 5 minutes).
      'lease = "5s"',
      '[[delivery.lanes]]',
      'name = "default"',
      'traffic = "marketing"',
      'rate_per_second = 400',
      '[broadcasts]',
      'expansion_batch = 50',
      'queue_ahead = 200',
      '[log]',
      'level = "silent"',
    ].join('\n'),
  );
  const serve = (): ChildProcess => spawn(BIN, ['serve', '--config', configFile], { stdio: 'ignore' });
  let child = serve();
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  await waitForPort(port, Date.now() + 120_000);
  const base = `http://127.0.0.1:${port}`;
  const path = `/v1/broadcasts/${broadcast.body.id}`;
  // Ahead: time enough to prepare the 3,000 (a few seconds) after a restart on a busy host.
  const sendAt = Math.ceil((Date.now() + 30_000) / 1000) * 1000;
  const schedule = moment === 'preparing' ? { send_at: new Date(sendAt).toISOString() } : undefined;
  t.is((await api(base, 'POST', `${path}/schedule`, schedule)).status, 202);

  let preparedAtKill = 0;
  if (moment === 'sending') await peer.waitFor(500, 300_000);
  else
    preparedAtKill = await until('a part of the preparation', async () => {
      const { body } = await api(base, 'GET', path);
      return body.progress.prepared >= 500 ? (body.progress.prepared as number) : undefined;
    });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const atKill = (await peer.waitFor(0)).length;
  if (moment === 'sending') t.true(atKill < CONTACTS, `killed midway (${atKill} received)`);
  else {
    t.is(atKill, 0, 'nothing was sent before the send time');
    t.true(preparedAtKill < CONTACTS, `killed midway through the preparation (${preparedAtKill} prepared)`);
  }

  child = serve();
  await waitForPort(port, Date.now() + 120_000);
  const done = await until(
    'the broadcast to be sent and delivered to everyone',
    async () => {
      const res = await api(base, 'GET', `/v1/broadcasts/${broadcast.body.id}`);
      return res.body.status === 'sent' && res.body.progress.delivered === CONTACTS ? res.body : undefined;
    },
    400_000,
  );
  t.is(done.progress.sent, CONTACTS);
  t.is(done.progress.recipients, CONTACTS);
  if (moment === 'preparing') {
    t.is(done.progress.prepared, CONTACTS, 'each contact prepared once, the preparation resumed');
    t.true(Date.parse(done.prepared_at) < sendAt, 'prepared before the send time');
  }

  const messagesOf = new Map<string, Set<string>>();
  const received = await peer.waitFor(0);
  for (const message of received) {
    const id = /\r\nMessage-ID: (<[^>]+>)/i.exec(message.data.toString('latin1'))?.[1] ?? '';
    for (const rcpt of message.rcptTo) {
      const set = messagesOf.get(rcpt) ?? new Set();
      set.add(id);
      messagesOf.set(rcpt, set);
    }
  }
  if (moment === 'preparing') {
    // Each message went out as prepared: signed (t=) before its send time.
    const late = received.filter((m) => {
      const signedAt = Number(/\bt=(\d+)/.exec(m.data.toString('latin1'))?.[1]);
      return !(signedAt < sendAt / 1000);
    });
    t.is(late.length, 0, 'every message was the prepared one');
  }
  t.is(messagesOf.size, CONTACTS, 'every contact received the broadcast');
  const twice = [...messagesOf].filter(([, ids]) => ids.size > 1);
  t.deepEqual(twice, [], 'no contact received two different messages');
  t.log(`${atKill} received before the kill; ${received.length - CONTACTS} transactions repeated after it`);
}
