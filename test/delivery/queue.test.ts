import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import SQLite from 'better-sqlite3';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { testConfig } from '../helpers/server.js';
import { startSmtpPeer } from '../helpers/smtp-peer.js';
import {
  events,
  eventually,
  mx,
  rows,
  send,
  sendingDomain,
  settled,
  sleep,
  startDeliveryEnv,
} from './env.js';
import { tarpit } from './tarpit.js';

test('a stalled provider holds up only its own lane', async (t) => {
  // The stalled host accepts the TCP connection and never greets: smtp_timeout bounds that wait.
  const env = await startDeliveryEnv(t, { config: { delivery: { smtp_timeout: '8s' } } });
  await tarpit(t, '127.0.0.3', env.peer.port);
  // google.com MX hosts select the gmail lane; the stalled host answers nothing.
  mx(env.dns, 'stalled.example', [{ host: 'aspmx.l.google.com', ip: '127.0.0.3' }]);
  mx(env.dns, 'fast.example', [{ host: 'mx.fast.example', ip: '127.0.0.1' }]);
  const stalled = await Promise.all(
    Array.from({ length: 12 }, (_, i) => send(env, { to: [`user${i}@stalled.example`] })),
  );
  await eventually(
    'the stalled lane to take its jobs',
    () =>
      rows(env.ph, "select 1 from delivery_jobs where lane = 'gmail' and locked_until is not null").length >
      0,
  );
  const started = Date.now();
  const fast = await send(env, { to: ['ann@fast.example'] });
  t.is(await settled(env.ph, fast, 3000), 'delivered');
  t.true(Date.now() - started < 3000, 'the default lane delivered while the gmail lane was stuck');
  for (const id of stalled) {
    t.deepEqual(
      events(env.ph, id).map((e) => e.type),
      ['email.sent'],
      'no stalled message had an outcome yet',
    );
  }
  // Once smtp_timeout passes without a greeting, the stalled lane defers its jobs.
  await eventually(
    'the stalled jobs to be deferred',
    () => stalled.every((id) => events(env.ph, id).some((e) => e.type === 'email.delivery_delayed')),
    20_000,
  );
  for (const id of stalled) {
    const [status] = rows<{ status: string }>(env.ph, 'select status from messages where id = ?', id);
    t.is(status?.status, 'deferred', 'a timed-out connection defers the message, it does not bounce it');
  }
});

test('stopping the engine gives jobs that are not on the wire back to the queue, without an event', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: { delivery: { smtp_timeout: '10s', drain_timeout: '500ms' } },
  });
  await tarpit(t, '127.0.0.3', env.peer.port);
  mx(env.dns, 'stalled.example', [{ host: 'mx.stalled.example', ip: '127.0.0.3' }]);
  const id = await send(env, { to: ['ann@stalled.example'] });
  await eventually(
    'the job to be claimed',
    () =>
      rows(env.ph, 'select 1 from delivery_jobs where message_id = ? and locked_until is not null', id)
        .length > 0,
  );
  const file = env.ph.server.kernel.store.file;
  const stopping = Date.now();
  await env.ph.server.stop();
  t.true(Date.now() - stopping < 5000, 'the stop waited for the drain time, not the connect timeout');
  const db = new SQLite(file, { readonly: true });
  t.teardown(() => db.close());
  const [job] = db
    .prepare('select state, locked_until, attempts from delivery_jobs where message_id = ?')
    .all(id);
  t.deepEqual(job, { state: 'queued', locked_until: null, attempts: 0 });
  const types = db.prepare('select type from events where message_id = ?').all(id) as { type: string }[];
  t.deepEqual(
    types.map((r) => r.type),
    ['email.sent'],
  );
});

test('soft bounces in a row suppress the address; a reputation block never does', async (t) => {
  const env = await startDeliveryEnv(t, { config: { delivery: { soft_bounce_limit: 2 } } });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('full@example.net', 552, '5.2.2 Mailbox full');
  env.peer.rcptReply('ann@example.net', 554, '5.7.1 Service unavailable; client host blocked using Spamhaus');
  for (let i = 0; i < 2; i++) {
    const id = await send(env, { to: ['full@example.net', 'ann@example.net'] });
    t.is(await settled(env.ph, id), 'bounced');
    const bounces = events(env.ph, id).filter((e) => e.type === 'email.bounced');
    t.deepEqual(
      bounces
        .map((e) => [e.recipient, e.data.bounce.type, e.data.bounce.category])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      [
        ['ann@example.net', 'soft', 'spam_block'],
        ['full@example.net', 'soft', 'mailbox_full'],
      ],
    );
    const full = await env.ph.request('GET', '/v1/suppressions/full@example.net');
    t.is(full.status, i === 0 ? 404 : 200, `after ${i + 1} soft bounce(s)`);
    if (i === 1) t.is(full.body.reason, 'repeated_soft_bounce');
  }
  const blocked = await env.ph.request('GET', '/v1/suppressions/ann@example.net');
  t.is(blocked.status, 404, 'a block of our IP says nothing about the address');
  const health = await env.ph.request('GET', '/health', { key: null });
  t.is(health.body.components?.queue?.status, 'degraded', JSON.stringify(health.body));
  t.regex(String(health.body.components?.queue?.detail), /reputation block on lane transactional\/default/);
});

test('a job leased by a crashed engine is delivered once its lease runs out', async (t) => {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  await tarpit(t, '127.0.0.3', peer.port);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'posthorn-crash-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const delivery = {
    hostname: 'mta.posthorn.test',
    port: peer.port,
    sending_ips: ['192.0.2.25'],
    lease: '3s',
    poll_interval: '100ms',
    smtp_timeout: '60s',
  };

  // 1. Queue a message with the engine off.
  const config = testConfig(dataDir, {
    dns: { servers: [dns.address] },
    delivery: { ...delivery, enabled: false },
  });
  const first = await startServer(config, createLogger('silent'));
  const owner = await first.services.projects.bootstrap(
    { email: 'o@example.test', organization: 'O', project: 'P' },
    'test',
  );
  const key = (
    await first.services.keys.create(
      { projectId: owner.projectId, scopes: ['full_access'], mode: 'live' },
      'test',
    )
  ).key;
  const request = async (method: string, pathname: string, body?: unknown) => {
    const res = await fetch(`${first.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const env = {
    ph: {
      request: async (m: string, p: string, o?: { body?: unknown }) => {
        const r = await request(m, p, o?.body);
        return { status: r.status, text: r.text, body: JSON.parse(r.text) };
      },
    },
    dns,
  } as unknown as Parameters<typeof sendingDomain>[0];
  await sendingDomain(env, 'acme.test');
  mx(dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.3' }]);
  const sent = await request('POST', '/v1/emails', {
    from: 'hello@acme.test',
    to: ['ann@example.net'],
    subject: 'Hi',
    text: 'Hi',
  });
  const id = JSON.parse(sent.text).id as string;
  await first.stop();

  // 2. A real `posthorn serve` claims the job, is stuck at the stalled MX, and is killed.
  const file = path.join(dataDir, 'crash.toml');
  writeFileSync(
    file,
    `[server]\nlisten = "127.0.0.1:0"\n[storage]\ndata_dir = ${JSON.stringify(dataDir)}\nsynchronous = "normal"\n` +
      `[smtp_in]\nenabled = false\n[dns]\nservers = [${JSON.stringify(dns.address)}]\n[log]\nlevel = "warn"\n` +
      `[delivery]\nenabled = true\n${Object.entries(delivery)
        .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
        .join('\n')}\n`,
  );
  const main = path.resolve(import.meta.dirname, '../../src/main.js');
  const child = spawn(process.execPath, [main, 'serve', '--config', file], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const db = new SQLite(path.join(dataDir, 'posthorn.sqlite'), { readonly: true });
  const leased = await eventually(
    'the child to lease the job',
    () =>
      db.prepare('select locked_until from delivery_jobs where message_id = ?').get(id) as {
        locked_until: number | null;
      },
    20_000,
  ).then(async (row) => {
    if (row.locked_until !== null) return row.locked_until;
    return eventually(
      'the lease',
      () =>
        (
          db.prepare('select locked_until from delivery_jobs where message_id = ?').get(id) as {
            locked_until: number | null;
          }
        ).locked_until ?? undefined,
      20_000,
    );
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  db.close();

  // 3. A new engine, with the MX now reachable, must wait out the lease and then deliver.
  mx(dns, 'example.net', [{ host: 'mx2.example.net', ip: '127.0.0.1' }]);
  const second = await startServer(
    testConfig(dataDir, { dns: { servers: [dns.address] }, delivery: { ...delivery, enabled: true } }),
    createLogger('silent'),
  );
  t.teardown(() => second.stop());
  const ph = { server: second } as unknown as Parameters<typeof settled>[0];
  if (Date.now() < leased - 300) {
    await sleep(Math.max(0, leased - Date.now() - 300));
    t.is(peer.messages.length, 0, 'not delivered while the lease holds');
  }
  t.is(await settled(ph, id, 15_000), 'delivered');
  t.true(Date.now() >= leased, 'delivered after the lease ran out');
  t.is(peer.messages.length, 1);
  t.deepEqual(
    events(ph, id).map((e) => e.type),
    ['email.sent', 'email.delivered'],
  );
});

test('marketing traffic has its own lanes: a stuck broadcast never holds up transactional mail', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: {
      delivery: {
        enabled: false,
        smtp_timeout: '20s',
        lanes: [
          { name: 'default', traffic: 'marketing', max_connections: 1, connections_per_mx: 1 } as never,
        ],
      },
    },
  });
  await tarpit(t, '127.0.0.3', env.peer.port);
  mx(env.dns, 'stalled.example', [{ host: 'mx.stalled.example', ip: '127.0.0.3' }]);
  mx(env.dns, 'fast.example', [{ host: 'mx.fast.example', ip: '127.0.0.1' }]);
  const broadcast = await Promise.all(
    Array.from({ length: 5 }, (_, i) => send(env, { to: [`fan${i}@stalled.example`] })),
  );
  const sqlite = env.ph.server.kernel.store.sqlite;
  for (const id of broadcast)
    sqlite.prepare("update delivery_jobs set traffic = 'marketing' where message_id = ?").run(id);
  const engine = env.ph.server.services.delivery.start({ deliver: true });
  t.teardown(() => engine.stop());
  await eventually(
    'the broadcast to be stuck in its lane',
    () =>
      rows(env.ph, "select 1 from delivery_jobs where traffic = 'marketing' and locked_until is not null")
        .length > 0,
  );
  const receipt = await send(env, { to: ['ann@fast.example'] });
  t.is(await settled(env.ph, receipt, 5000), 'delivered');
  t.deepEqual(rows(env.ph, 'select traffic, lane from delivery_jobs where message_id = ?', receipt), [
    { traffic: 'transactional', lane: 'default' },
  ]);
  for (const id of broadcast)
    t.deepEqual(
      events(env.ph, id).map((e) => e.type),
      ['email.sent'],
    );
});
