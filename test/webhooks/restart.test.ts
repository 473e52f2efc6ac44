import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { ANALYTICS_CURSOR } from '../../src/analytics/projector.js';
import { createLogger } from '../../src/platform/log.js';
import { idFloor, newId } from '../../src/platform/ids.js';
import { REPUTATION_CURSOR } from '../../src/reputation/center/projector.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { DISPATCHER_CURSOR } from '../../src/webhooks/fan-out.js';
import { testConfig } from '../helpers/server.js';
import { eventually, startReceiver } from './receiver.js';

/** One data directory, served by successive Posthorn processes (in-process here). */
function instance(t: ExecutionContext, webhooks: Record<string, unknown>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'posthorn-restart-'));
  let server: RunningServer | undefined;
  t.teardown(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const config = testConfig(dataDir, {
    webhooks: { allow_http: true, allow_private_targets: true, ...webhooks },
  });
  return {
    async start() {
      server = await startServer(config, createLogger(config.log.level));
      return server;
    },
    async stop() {
      await server?.stop();
      server = undefined;
    },
  };
}

async function api(server: RunningServer, key: string, method: string, pathname: string, body?: unknown) {
  const res = await fetch(`${server.url}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function setUp(server: RunningServer, url: string) {
  const ids = await server.services.projects.bootstrap(
    { email: 'o@example.test', organization: 'O', project: 'P' },
    'test',
  );
  const { key } = await server.services.keys.create(
    { projectId: ids.projectId, scopes: ['full_access'], mode: 'live' },
    'test',
  );
  const endpoint = await api(server, key, 'POST', '/v1/webhooks', { url, events: ['*'] });
  const { events } = server.services;
  const messageId = newId('msg');
  await events.append(server.kernel.db, {
    projectId: ids.projectId,
    type: 'email.delivered',
    messageId,
    recipient: 'r@example.com',
    data: { email_id: messageId },
  });
  events.notify();
  return { key, endpointId: endpoint.body.id as string };
}

test('a pending retry survives a restart and is sent by the next process', async (t) => {
  const receiver = await startReceiver(t);
  receiver.reply((_request, index) => (index === 0 ? { status: 500 } : { status: 200 }));
  const node = instance(t, { retry_schedule: ['2s'] });
  let server = await node.start();
  const { key, endpointId } = await setUp(server, receiver.url);
  await receiver.waitFor(1);
  await eventually(async () => {
    const log = await api(server, key, 'GET', `/v1/webhooks/${endpointId}/deliveries`);
    return log.body.data.some((a: { status: string }) => a.status === 'pending') ? true : undefined;
  });
  await node.stop();

  server = await node.start();
  const [first, second] = await receiver.waitFor(2);
  t.is(second!.headers['webhook-id'], first!.headers['webhook-id']);
  t.true(second!.at - first!.at >= 1900);
  const log = await eventually(async () => {
    const page = await api(server, key, 'GET', `/v1/webhooks/${endpointId}/deliveries`);
    return page.body.data[0]?.status === 'succeeded' ? page.body : undefined;
  });
  t.like(log.data[0], { attempt: 2, trigger: 'retry' });
  t.like(log.data[1], { attempt: 1, status: 'failed', response_status: 500 });
});

test('a request cut off by a shutdown is sent again after the restart (at least once)', async (t) => {
  const receiver = await startReceiver(t);
  receiver.reply((_request, index) => (index === 0 ? { status: 200, delayMs: 10_000 } : { status: 200 }));
  const node = instance(t, { timeout: '15s' });
  let server = await node.start();
  const { key, endpointId } = await setUp(server, receiver.url);
  await receiver.waitFor(1);
  await node.stop();

  server = await node.start();
  const [first, second] = await receiver.waitFor(2, 5000);
  t.is(second!.headers['webhook-id'], first!.headers['webhook-id']);
  t.is(second!.body, first!.body);
  const log = await eventually(async () => {
    const page = await api(server, key, 'GET', `/v1/webhooks/${endpointId}/deliveries`);
    return page.body.data[0]?.status === 'succeeded' ? page.body : undefined;
  });
  t.is(log.data.length, 1, 'the interrupted attempt was not recorded as a failure');
  t.like(log.data[0], { attempt: 1, status: 'succeeded' });
});

test('an event appended after a restart with an earlier time than the last one read is still sent and counted', async (t) => {
  const receiver = await startReceiver(t);
  const node = instance(t, {});
  let server = await node.start();
  const { projectId } = await server.services.projects.bootstrap(
    { email: 'o@example.test', organization: 'O', project: 'P' },
    'test',
  );
  const { key } = await server.services.keys.create(
    { projectId, scopes: ['full_access'], mode: 'live' },
    'test',
  );
  t.is((await api(server, key, 'POST', '/v1/webhooks', { url: receiver.url, events: ['*'] })).status, 201);
  // Mail received now, after the endpoint exists, is spooled and only processed after a restart.
  const receivedAt = Date.now();
  // The previous process's clock ran a minute ahead (or this host's clock was stepped back at
  // boot): the last event it appended, and that the readers' cursors point at, carries that time.
  const ahead = Date.now() + 60_000;
  const lastRead = idFloor('evt', ahead);
  const readMessage = newId('msg');
  server.kernel.store.sqlite
    .prepare(
      `insert into events (id, project_id, type, message_id, recipient, data, created_at)
       values (?, ?, 'email.sent', ?, null, ?, ?)`,
    )
    .run(
      lastRead,
      projectId,
      readMessage,
      JSON.stringify({ email_id: readMessage, to: ['a@example.com'] }),
      ahead,
    );
  server.services.events.notify();
  await receiver.waitFor(1);
  // Every reader of the event log has read up to that event before the stop.
  const readers = [DISPATCHER_CURSOR, ANALYTICS_CURSOR, REPUTATION_CURSOR].sort();
  const cursors = () =>
    server.kernel.store.sqlite.prepare('select consumer, last_event_id from event_cursors').all() as {
      consumer: string;
      last_event_id: string;
    }[];
  await eventually(async () => {
    const read = cursors();
    const consumers = read.map((c) => c.consumer).sort();
    return JSON.stringify(consumers) === JSON.stringify(readers) &&
      read.every((c) => c.last_event_id === lastRead)
      ? true
      : undefined;
  });
  await node.stop();

  server = await node.start();
  // The spooled mail is processed now, with the time it was received.
  const messageId = newId('msg');
  const payload = await server.services.events.append(server.kernel.db, {
    projectId,
    type: 'email.sent',
    messageId,
    at: receivedAt,
    data: { email_id: messageId, to: ['b@example.com'] },
  });
  server.services.events.notify();
  t.true(payload.id > lastRead, 'the new event sorts after everything already appended');
  t.is(payload.created_at, new Date(receivedAt).toISOString(), 'created_at is still the given time');

  const [, second] = await receiver.waitFor(2, 5_000);
  t.like(JSON.parse(second!.body), { id: payload.id, created_at: payload.created_at });
  const counted = await eventually(async () =>
    server.kernel.store.sqlite
      .prepare('select status, queued_at from analytics_recipients where message_id = ?')
      .get(messageId),
  );
  t.deepEqual(counted, { status: 'queued', queued_at: receivedAt });
});
