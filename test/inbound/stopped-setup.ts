/**
 * An operator's setup on a data dir, left stopped: a project, a verified domain (its records served
 * by a loopback DNS server) and a `support@` route. Tests that then start the real process, or
 * write into the spool before a start, begin here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import type { InboundRecipient } from '../../src/inbound/listener/recipients.js';
import { createLogger } from '../../src/platform/log.js';
import { startServer } from '../../src/server.js';
import { publish, SENDING_IP } from '../domains/env.js';
import { type ClamdAddress, requireClamd } from '../helpers/clamd.js';
import { type DnsTestServer, startDnsServer } from '../helpers/dns-server.js';
import { freshDatabase, testEngine } from '../helpers/postgres.js';
import { type ConfigOverrides, testConfig } from '../helpers/server.js';
import { DOMAIN } from './env.js';

export interface StoppedSetup {
  readonly dataDir: string;
  readonly dns: DnsTestServer;
  readonly clamd: ClamdAddress;
  /** The config the setup ran with; a later in-process start uses the same. */
  readonly overrides: ConfigOverrides;
  /** With POSTHORN_TEST_ENGINE=postgresql, the database every start of this setup uses. */
  readonly database: string | undefined;
  readonly projectId: string;
  readonly routeId: string;
  /** The route's address as the listener resolves it, for writing into the spool directly. */
  readonly recipient: InboundRecipient;
}

export async function stoppedSetup(
  t: ExecutionContext,
  prefix: string,
  smtpIn: ConfigOverrides['smtp_in'] = { enabled: true, listen: '127.0.0.1:0' },
): Promise<StoppedSetup> {
  const clamd = await requireClamd();
  const dataDir = mkdtempSync(join(tmpdir(), `posthorn-${prefix}-`));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  // On PostgreSQL every start of the setup (in process or `posthorn serve`) uses one database, as
  // every start on SQLite uses the data dir's file.
  const database =
    testEngine() === 'postgresql' ? (await freshDatabase(t, { migrated: true })).url : undefined;
  const overrides: ConfigOverrides = {
    ...(database === undefined ? {} : { storage: { engine: 'postgresql', url: database, pool_size: 4 } }),
    dns: { servers: [dns.address] },
    delivery: { sending_ips: [SENDING_IP] },
    clamav: { host: clamd.host, port: clamd.port },
    ...(smtpIn ? { smtp_in: smtpIn } : {}),
  };
  const setup = await startServer(testConfig(dataDir, overrides), createLogger('silent'));
  const { projectId } = await setup.services.projects.bootstrap(
    { email: 'owner@example.test', organization: 'Org', project: 'P' },
    'test',
  );
  const domain = await setup.services.domains.create(projectId, { name: DOMAIN, region: 'eu' });
  publish(dns, domain as never);
  t.is((await setup.services.domains.verify(projectId, domain.id)).status, 'verified');
  const route = await setup.services.inbound.createRoute(projectId, {
    domain_id: domain.id,
    local_part: 'support',
  });
  await setup.stop();
  const recipient: InboundRecipient = {
    kind: 'route',
    address: `support@${DOMAIN}`,
    projectId,
    routeId: route.id,
  };
  return { dataDir, dns, clamd, overrides, database, projectId, routeId: route.id, recipient };
}
