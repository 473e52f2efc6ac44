/**
 * Two nodes on one PostgreSQL database, as the README's several-nodes section runs them: each with
 * its own SMTP listener and spool (the MX records name both), the same master key, one database.
 * Mail received by either node is stored once and seen through both; a reply received by one node
 * joins the thread of the message the other received; attachments are scanned whichever node took
 * them. Runs on PostgreSQL whatever POSTHORN_TEST_ENGINE says (scripts/peers starts it).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../../src/platform/log.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { publish, SENDING_IP } from '../domains/env.js';
import { requireClamd } from '../helpers/clamd.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { freshDatabase } from '../helpers/postgres.js';
import { type ConfigOverrides, testConfig } from '../helpers/server.js';
import { query } from '../helpers/sql.js';
import { DOMAIN, eventually, sendSmtp } from './env.js';

interface Node {
  readonly server: RunningServer;
  readonly dataDir: string;
  readonly smtpPort: number;
}

async function startNode(
  t: ExecutionContext,
  overrides: ConfigOverrides,
  masterKeyFrom?: string,
): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'posthorn-inbound-node-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // Every node holds the same master key (copied from the first, as the README says).
  if (masterKeyFrom !== undefined)
    copyFileSync(join(masterKeyFrom, 'master.key'), join(dataDir, 'master.key'));
  const server = await startServer(testConfig(dataDir, overrides), createLogger('silent'));
  t.teardown(() => server.stop());
  return { server, dataDir, smtpPort: (await server.services.inbound.ready()).port };
}

/** Two nodes on one fresh database, a project with a verified domain and a catch-all route. */
async function twoNodes(t: ExecutionContext) {
  const clamd = await requireClamd();
  const { url } = await freshDatabase(t, { migrated: true });
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const overrides: ConfigOverrides = {
    storage: { engine: 'postgresql', url, pool_size: 4 },
    dns: { servers: [dns.address] },
    delivery: { sending_ips: [SENDING_IP] },
    clamav: { host: clamd.host, port: clamd.port, rescan_interval: '500ms' },
    smtp_in: { enabled: true, listen: '127.0.0.1:0' },
  };
  const a = await startNode(t, overrides);
  const { services } = a.server;
  const { projectId } = await services.projects.bootstrap(
    { email: 'owner@example.test', organization: 'Org', project: 'P' },
    'test',
  );
  const domain = await services.domains.create(projectId, { name: DOMAIN, region: 'eu' });
  publish(dns, domain as never);
  if ((await services.domains.verify(projectId, domain.id)).status !== 'verified')
    throw new Error('the domain did not verify');
  await services.inbound.createRoute(projectId, { domain_id: domain.id });
  const b = await startNode(t, overrides, a.dataDir);
  const settled = () =>
    Promise.all([a.server.services.inbound.settled(), b.server.services.inbound.settled()]);
  return { a, b, projectId, settled };
}

const listed = async (node: Node, projectId: string) =>
  (await node.server.services.inbound.listEmails(projectId, { limit: 100 })).data;

test('mail received by either node is stored once, seen through both, and its attachments scanned', async (t) => {
  const { a, b, projectId, settled } = await twoNodes(t);
  const subjects = Array.from({ length: 12 }, (_, i) => `Order ${String(i).padStart(2, '0')}`);
  await Promise.all(
    subjects.map((subject, i) =>
      sendSmtp((i % 2 === 0 ? a : b).smtpPort, {
        from: 'orders@sender.example',
        to: `inbox@${DOMAIN}`,
        subject,
        text: `Body of ${subject}`,
        attachments: [{ filename: 'order.txt', content: `${subject}\n` }],
      }),
    ),
  );
  await settled();
  const fromA = await listed(a, projectId);
  const fromB = await listed(b, projectId);
  t.deepEqual(fromA.map((m) => m.subject).sort(), subjects);
  t.deepEqual(
    fromB.map((m) => m.id),
    fromA.map((m) => m.id),
  );
  const receipts = await query<{ n: number }>(
    a.server.kernel.store,
    'select count(*) as n from inbound_receipts',
  );
  t.is(Number(receipts[0]?.n), subjects.length, 'one receipt per SMTP transaction');
  const states = await eventually(async () => {
    await Promise.all([a.server.services.inbound.scanNow(), b.server.services.inbound.scanNow()]);
    const rows = await query<{ scan_state: string }>(
      a.server.kernel.store,
      'select scan_state from inbound_attachments order by id',
    );
    return rows.every((row) => row.scan_state !== 'pending') ? rows : undefined;
  }, 20_000);
  t.deepEqual(
    states.map((row) => row.scan_state),
    subjects.map(() => 'clean'),
  );
});

test('a reply received by one node joins the thread of the message the other node received', async (t) => {
  const { a, b, projectId, settled } = await twoNodes(t);
  await sendSmtp(a.smtpPort, {
    from: 'Ann <ann@sender.example>',
    to: `support@${DOMAIN}`,
    subject: 'Where is my order?',
    text: 'It has not arrived.',
    messageId: '<question@sender.example>',
  });
  await settled();
  await sendSmtp(b.smtpPort, {
    from: 'Ann <ann@sender.example>',
    to: `support@${DOMAIN}`,
    subject: 'Re: Where is my order?',
    text: 'Any news?',
    messageId: '<follow-up@sender.example>',
    inReplyTo: '<question@sender.example>',
    references: ['<question@sender.example>'],
  });
  await settled();
  await sendSmtp(a.smtpPort, {
    from: 'Ann <ann@sender.example>',
    to: `support@${DOMAIN}`,
    subject: 'Re: Where is my order?',
    text: 'Found it, thanks.',
    inReplyTo: '<follow-up@sender.example>',
    references: ['<question@sender.example>', '<follow-up@sender.example>'],
  });
  await settled();
  const messages = await listed(b, projectId);
  t.is(messages.length, 3);
  t.is(new Set(messages.map((m) => m.thread_id)).size, 1, 'one thread across both nodes');
  const threads = await query<{ n: number }>(
    a.server.kernel.store,
    'select count(*) as n from inbound_threads',
  );
  t.is(Number(threads[0]?.n), 1);
});
