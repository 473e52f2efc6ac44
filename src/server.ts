/**
 * The boot sequence of `posthorn serve` and its graceful stop. Order: store, migrations, master
 * key (checked against what the store holds sealed), services, HTTP, background engines.
 *
 * Stop: HTTP stops accepting and lets in-flight requests finish (up to `server.shutdown_timeout`)
 * while the engines stop beside it (background.ts): the delivery engine claims nothing more from
 * the first moment and drains its transactions (`delivery.drain_timeout`) as the requests finish,
 * instead of after them. Then the last-used times are flushed and the store closed. A stop so takes
 * about the longer of the two waits, not their sum, and stays within the unit's `TimeoutStopSec`.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auditedDenials } from './audit/denials.js';
import { auditedRequests } from './audit/http.js';
import { createOwnerLookup } from './audit/owners.js';
import { createAuthenticators } from './auth/authenticators.js';
import { startBackground } from './background.js';
import type { Kernel } from './kernel.js';
import { bootMasterKey } from './master-key-boot.js';
import { parseDuration } from './platform/config/duration.js';
import type { Config } from './platform/config/schema.js';
import { openConfiguredStore } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { parseHostPort, urlHost } from './platform/host-port.js';
import { AccessSummary } from './platform/http/access-summary.js';
import { createApp } from './platform/http/app.js';
import { ListenError } from './platform/listen-error.js';
import type { Logger } from './platform/log.js';
import { allRoutes } from './routes.js';
import { buildServices, type Services } from './services.js';

export interface RunningServer {
  readonly url: string;
  readonly kernel: Kernel;
  readonly services: Services;
  stop(): Promise<void>;
}

export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const store = openConfiguredStore(config.storage, { server: true });
  let master: Awaited<ReturnType<typeof bootMasterKey>>;
  try {
    const applied = await migrateToLatest(store.db, {
      onStart: (name) => log.info({ migration: name }, `applying migration ${name}`),
      onApplied: (name, ms) => log.info({ migration: name, ms }, `applied migration ${name} in ${ms} ms`),
      onWarning: (name, message) => log.warn({ migration: name }, `migration ${name}: ${message}`),
    });
    if (applied.length > 0) log.info({ migrations: applied }, 'applied migrations');
    master = await bootMasterKey(config, store.db);
  } catch (error) {
    await store.close();
    throw error;
  }
  if (master.created)
    log.info({ file: master.file }, `wrote a new master key to ${master.file} (mode 0600); back it up`);
  const kernel: Kernel = { config, log, store, db: store.db, masterKey: master.key };
  const services = buildServices(kernel);
  registerCoreProbes(kernel, services);
  try {
    // The operator's system project owns Posthorn's own mail; made once, on the first boot.
    await services.systemMail.ensureProject();
  } catch (error) {
    await store.close();
    throw error;
  }
  const accessSummary = new AccessSummary(log);
  const app = createApp({
    log,
    accessLog: config.log.access_log,
    accessSummary,
    maxBodyBytes: config.limits.max_body_bytes,
    trustProxy: config.server.trust_proxy,
    routes: allRoutes(kernel, services),
    authenticators: createAuthenticators(services, {
      ...services.web.authOptions,
      oauthAccess: (token) => services.oauth.authenticate(token),
    }),
    around: auditedRequests(services.audit),
    denied: auditedDenials(services.audit, createOwnerLookup(kernel.db)),
    fallback: services.web.assets?.serve,
  });
  const { host, port } = parseHostPort(config.server.listen);
  const server = createHttpServer(
    {
      headersTimeout: parseDuration(config.server.headers_timeout),
      requestTimeout: parseDuration(config.server.request_timeout),
      // Timeouts are enforced when connections are checked: often enough for the shortest.
      connectionsCheckingInterval: Math.min(1000, parseDuration(config.server.headers_timeout)),
    },
    app.callback(),
  );
  server.maxConnections = config.server.max_connections;
  server.listen({ host, port });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (error) {
    await store.close();
    throw new ListenError('server.listen', config.server.listen, error);
  }
  const address = server.address() as AddressInfo;
  const url = `http://${urlHost(address.address)}:${address.port}`;
  let background: Awaited<ReturnType<typeof startBackground>>;
  try {
    background = await startBackground(kernel, services);
  } catch (error) {
    // Nothing may keep the process alive after a failed boot: `serve` must exit, not hang.
    await closeHttp(server, 0);
    await store.close();
    throw error;
  }
  log.info({ url }, `posthorn listening on ${url}`);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const stopped = await Promise.allSettled([
        background.stop(),
        closeHttp(server, parseDuration(config.server.shutdown_timeout)),
      ]);
      const failed = stopped.find((result) => result.status === 'rejected');
      accessSummary.flush();
      if (failed) throw failed.reason;
      await services.keys.flushLastUsed();
      await services.accounts.sessions.flushLastSeen();
      await services.audit.flush();
      await store.close();
      log.info('posthorn stopped');
    })();
    return stopping;
  };
  return { url, kernel, services, stop };
}

function registerCoreProbes(kernel: Kernel, services: Services): void {
  services.health.register('api', () => ({ status: 'operational' }));
  services.health.register('database', async () => {
    await kernel.store.ping();
    return { status: 'operational', detail: kernel.store.engine };
  });
  // The delivery engine replaces this with its own probe once it runs.
  services.health.register('queue', async () => {
    await kernel.store.ping('delivery_jobs');
    return { status: 'operational' };
  });
}

async function closeHttp(server: Server, timeoutMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
  await closed;
  clearTimeout(timer);
}
