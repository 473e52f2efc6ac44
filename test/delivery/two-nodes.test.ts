/**
 * Two `posthorn serve` processes on one PostgreSQL database deliver one batch of mail to a
 * loopback MX, and every event of it to a webhook receiver on loopback; one of them is killed
 * (SIGKILL) midway. Every message arrives, and the only ones that arrive twice are those the killed
 * node had on the wire when it died (its outcome never committed, so the job came back when its
 * lease ran out). Every event reaches the webhook under one webhook-id; a request the killed node
 * had in flight is sent again, by the other node, under the same webhook-id (counted once, as a
 * receiver deduplicating by it does). Runs on PostgreSQL in every pass: the several-node case has
 * no SQLite counterpart.
 *
 * The suite sends 5,000 messages, the issue's figure (1.5–3 minutes on a two-core host);
 * POSTHORN_TEST_TWO_NODES_MESSAGES sets another count (`scripts/chaos nodes N`).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { INTERNAL_EVENT_TYPES } from '../../src/events/types.js';
import { BIN } from '../helpers/cli.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { freshDatabase } from '../helpers/postgres.js';
import { type PeerMessage, startSmtpPeer } from '../helpers/smtp-peer.js';
import { querySync } from '../helpers/sql.js';
import { freePort, waitForPort } from '../inbound/serve-process.js';
import { startReceiver } from '../webhooks/receiver.js';

const MESSAGES = Number(process.env.POSTHORN_TEST_TWO_NODES_MESSAGES ?? 5000);
const BATCH = 100;
/**
 * Long enough that a node starved of CPU on a busy host still renews its leases in time (a lease
 * that runs out while the job is on the wire sends it twice, by design); short enough that the
 * killed node's jobs come back within the test.
 */
const LEASE = '10s';
/** Webhook requests in flight on one node (`webhooks.concurrency`): at most this many go twice. */
const WEBHOOK_CONCURRENCY = 16;

type Sections = Record<string, Record<string, unknown>>;

const toml = (sections: Sections) =>
  Object.entries(sections)
    .map(
      ([name, values]) =>
        `[${name}]\n${Object.entries(values)
          .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
          .join('\n')}\n`,
    )
    .join('');

interface Node {
  readonly name: string;
  readonly url: string;
  readonly config: string;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function startNode(
  dir: string,
  name: string,
  sections: Sections,
  env: NodeJS.ProcessEnv,
): Promise<Node> {
  const port = await freePort();
  const dataDir = path.join(dir, name);
  const config = path.join(dir, `${name}.toml`);
  writeFileSync(
    config,
    toml({
      ...sections,
      server: { listen: `127.0.0.1:${port}`, public_url: `http://127.0.0.1:${port}` },
      storage: { ...sections.storage, data_dir: dataDir },
      delivery: { ...sections.delivery, hostname: `${name}.posthorn.test` },
    }),
  );
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const node = {
    name,
    url: `http://127.0.0.1:${port}`,
    config,
    async start() {
      const started = spawn(BIN, ['serve', '--config', config], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env,
      });
      child = started;
      exited = new Promise((resolve) => started.once('exit', () => resolve()));
      await waitForPort(port, Date.now() + 90_000);
    },
    async kill() {
      child?.kill('SIGKILL');
      await exited;
      child = undefined;
    },
    async stop() {
      child?.kill('SIGTERM');
      await exited;
      child = undefined;
    },
  };
  return node as Node & { start(): Promise<void> };
}

async function api(node: Node, key: string, method: string, pathname: string, body?: unknown) {
  const res = await fetch(`${node.url}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('two nodes on one PostgreSQL database deliver every message, only what the killed node had in flight twice, and every event to the webhook under one webhook-id', async (t) => {
  // Minutes per thousand messages on a loaded two-core host, beyond the nodes' start.
  const budgetMs = (per1000: number) => 60_000 + MESSAGES * per1000;
  t.timeout(budgetMs(400));
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-two-nodes-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const database = await freshDatabase(t, { migrated: true });
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const peer = await startSmtpPeer();
  t.teardown(() => peer.close());
  const hooks = await startReceiver(t);
  // Each webhook takes a moment too (300 ms), so that each node has requests in flight at the kill.
  hooks.reply(() => ({ status: 204, delayMs: 300 }));
  // Each message takes a moment at the MX, so that each node has transactions in flight.
  peer.delayDataReply(50);
  // One master key for both nodes (the bootstrap writes it): each opens the DKIM keys the other sealed.
  const keyFile = path.join(dir, 'master.key');
  const sections: Sections = {
    storage: { engine: 'postgresql', url: database.url, pool_size: 4 },
    security: { master_key_file: keyFile },
    smtp_in: { enabled: false },
    dns: { servers: [dns.address], timeout_ms: 1000 },
    delivery: {
      enabled: true,
      port: peer.port,
      sending_ips: ['192.0.2.25'],
      lease: LEASE,
      poll_interval: '200ms',
      retry_schedule: ['1s'],
      connect_timeout: '3s',
    },
    // A request cut by the kill is sent again once its lease (timeout + margin) runs out.
    webhooks: {
      allow_http: true,
      allow_private_targets: true,
      timeout: '5s',
      lease_margin: '5s',
      concurrency: WEBHOOK_CONCURRENCY,
      // Room for both nodes' requests at once: each node sends to the endpoint.
      per_endpoint_concurrency: 2 * WEBHOOK_CONCURRENCY,
    },
    log: { level: 'error' },
  };
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('POSTHORN_')) delete env[key];
  const a = await startNode(dir, 'node-a', sections, env);
  const b = await startNode(dir, 'node-b', sections, env);
  const boot = spawnSync(
    BIN,
    [
      'admin',
      'bootstrap',
      '--config',
      a.config,
      '--email',
      'owner@example.test',
      '--org',
      'Two nodes',
      '--json',
    ],
    { encoding: 'utf8', env, timeout: 60_000 },
  );
  if (boot.status !== 0) throw new Error(`admin bootstrap: ${boot.stderr}`);
  const key = (JSON.parse(boot.stdout) as { api_key: string }).api_key;
  await Promise.all([
    (a as Node & { start(): Promise<void> }).start(),
    (b as Node & { start(): Promise<void> }).start(),
  ]);
  t.teardown(() => Promise.all([a.stop(), b.stop()]).then(() => {}));

  const endpoint = await api(a, key, 'POST', '/v1/webhooks', { url: hooks.url, events: ['*'] });
  t.is(endpoint.status, 201, JSON.stringify(endpoint.body));
  for (const host of ['node-a.posthorn.test', 'node-b.posthorn.test', 'mx.example.net'])
    dns.set(host, 'A', ['127.0.0.1']);
  dns.set('example.net', 'MX', [{ preference: 10, exchange: 'mx.example.net' }]);
  const domain = await api(a, key, 'POST', '/v1/domains', { name: 'acme.test' });
  t.is(domain.status, 201, JSON.stringify(domain.body));
  for (const record of domain.body.records as {
    type: string;
    host: string;
    value: string;
    value_strings?: string[];
  }[])
    if (record.type === 'TXT') dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
  t.is((await api(b, key, 'POST', `/v1/domains/${domain.body.id}/verify`)).body.status, 'verified');

  const byNode = (name: string) => peer.messages.filter((m) => m.clientHostname === `${name}.posthorn.test`);
  // Half the batches through each node.
  const ids: string[] = [];
  for (let start = 0; start < MESSAGES; start += BATCH) {
    const node = (start / BATCH) % 2 === 0 ? a : b;
    const emails = Array.from({ length: BATCH }, (_, i) => ({
      from: 'Acme <hello@acme.test>',
      to: [`r${start + i}@example.net`],
      subject: `m${start + i}`,
      text: `message ${start + i}`,
    }));
    const res = await api(node, key, 'POST', '/v1/emails/batch', { emails });
    t.is(res.status, 202, JSON.stringify(res.body).slice(0, 500));
    ids.push(...(res.body.data as { id: string }[]).map((item) => item.id));
  }

  // Killed once a third of the batch has reached the MX.
  await until('a third of the batch at the MX', () => peer.messages.length >= MESSAGES / 3, budgetMs(200));
  await b.kill();
  const killedAt = Date.now();
  const beforeKill = byNode('node-b').length;
  t.true(peer.messages.length < MESSAGES, 'the kill came before the end');
  t.log(`node-b killed after ${beforeKill} messages (node-a ${byNode('node-a').length})`);

  const received = () => new Set(peer.messages.flatMap((m) => m.rcptTo));
  await until('every message at the MX', () => received().size >= MESSAGES, budgetMs(200));

  // Every message arrived, each to its own recipient.
  const copies = new Map<string, PeerMessage[]>();
  for (const message of peer.messages) {
    for (const rcpt of message.rcptTo) copies.set(rcpt, [...(copies.get(rcpt) ?? []), message]);
  }
  t.is(copies.size, MESSAGES, 'none lost');
  t.true(byNode('node-a').length > 0 && beforeKill > 0, 'both nodes delivered');
  t.true(
    byNode('node-b').every((m) => m.mailFromAt <= killedAt),
    'nothing came from the killed node after the kill',
  );
  // A message twice only when its first copy left the killed node before the kill, and the
  // second came from the node still running.
  const twice = [...copies.values()].filter((list) => list.length > 1);
  for (const list of twice)
    t.log(
      list.map((m) => `${m.rcptTo.join(',')} ${m.clientHostname} ${m.mailFromAt - killedAt}`).join(' | '),
    );
  for (const list of twice) {
    t.is(list.length, 2);
    t.is(list[0]?.clientHostname, 'node-b.posthorn.test');
    t.is(list[1]?.clientHostname, 'node-a.posthorn.test');
  }
  t.log(`${twice.length} messages twice: those node-b had in flight at the kill`);
  // Bounded by what one node holds at once: its claims never exceed one lane's connections' worth.
  t.true(twice.length <= 64, `${twice.length} duplicates`);

  // The store agrees: every message delivered, each with exactly one email.delivered event.
  const store = { engine: 'postgresql' } as Parameters<typeof querySync>[0];
  await until(
    'every message recorded as delivered',
    () =>
      (
        querySync<{ n: number }>(
          store,
          database.url,
          "select count(*)::int as n from messages where status = 'delivered'",
          [],
        )[0] ?? { n: 0 }
      ).n >= MESSAGES,
    budgetMs(20),
  );
  const events = querySync<{ n: number; messages: number }>(
    store,
    database.url,
    "select count(*)::int as n, count(distinct message_id)::int as messages from events where type = 'email.delivered'",
    [],
  )[0];
  t.deepEqual(events, { n: MESSAGES, messages: MESSAGES }, 'one email.delivered event per message');
  t.is(ids.length, MESSAGES);

  // Every event the endpoint subscribes to reaches it, under one webhook-id.
  const logged = () =>
    new Set(
      querySync<{ id: string }>(
        store,
        database.url,
        `select e.id from events e, webhook_endpoints w
          where w.id = $1 and e.created_at >= w.created_at and e.type <> all($2::text[])`,
        [endpoint.body.id, [...INTERNAL_EVENT_TYPES]],
      ).map((row) => row.id),
    );
  const hookIds = new Map<string, Set<string>>();
  let seen = 0;
  const heard = () => {
    for (; seen < hooks.received.length; seen++) {
      const request = hooks.received[seen];
      if (!request) break;
      const id = (JSON.parse(request.body) as { id: string }).id;
      hookIds.set(id, (hookIds.get(id) ?? new Set()).add(String(request.headers['webhook-id'])));
    }
    return hookIds;
  };
  const expected = logged();
  t.true(expected.size >= 2 * MESSAGES, `${expected.size} events (sent and delivered at least)`);
  await until('every event at the webhook', () => [...expected].every((id) => heard().has(id)), budgetMs(60));
  const final = logged();
  t.deepEqual(
    [...final].filter((id) => !heard().has(id)),
    [],
    'every event at the webhook',
  );
  t.deepEqual(
    [...heard().keys()].filter((id) => !final.has(id)),
    [],
    'and nothing else',
  );
  const split = [...heard()].filter(([, webhookIds]) => webhookIds.size !== 1);
  t.deepEqual(split, [], 'each event under one webhook-id');
  const resent = hooks.received.length - heard().size;
  t.log(`${hooks.received.length} webhook requests for ${heard().size} events: ${resent} sent again`);
  t.true(resent <= WEBHOOK_CONCURRENCY, `${resent} webhooks sent twice: at most those in flight at the kill`);
});
