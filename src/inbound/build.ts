/**
 * Builds the inbound capability from the kernel and the services it depends on (domains, the send
 * path, events, suppressions, health), and starts its engine: the spool, the attachment scanner,
 * the processor and the SMTP listener. The composition root calls `buildInbound` once;
 * `background.ts` calls `start()` after HTTP listens when `smtp_in.enabled`; `ready()` resolves
 * with the bound SMTP address.
 *
 * The capability's rooms, in the order a message passes through them: listener/ (SMTP and the
 * spool), analysis/ (authentication, parsing, reading a report), then threads/ for routed mail or
 * reports/ for DSNs and complaints, and scanning/ (attachments). A room imports only from the rooms
 * before it and from the store, never from a later room nor from the rest of this top level, which
 * puts them together: this build, the processor that walks each spooled message through the rooms
 * (processor.ts), the service and its routes. test/layout/rooms.test.ts holds the order.
 */
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createDeliveryStore } from '../delivery/queue/store.js';
import type { EventService } from '../events/service.js';
import type { HealthRegistry } from '../health/registry.js';
import type { Kernel } from '../kernel.js';
import { parseDuration } from '../platform/config/duration.js';
import { ListenError } from '../platform/listen-error.js';
import { ensureSelfSignedCert } from '../platform/tls/self-signed.js';
import { suppressBesideOutcome } from '../suppressions/beside-outcome.js';
import type { SuppressionService } from '../suppressions/service.js';
import { type Analyzer, createAnalyzer } from './analysis/analyzer.js';
import { type InboundListener, startListener } from './listener/listener.js';
import { type BounceTarget, createRecipientCheck } from './listener/recipients.js';
import { openSpool } from './listener/spool.js';
import { createProcessor, type Processor } from './processor.js';
import type { UnsubscribePort } from './processor-effects.js';
import { createDsnWriter } from './reports/dsn-outcome.js';
import { createFeedbackHandler } from './reports/feedback.js';
import { createSentMail } from './reports/sent-mail.js';
import { type ScanEngine, startScanEngine } from './scanning/scan-engine.js';
import { clamavHealth, createScanner } from './scanning/scanner.js';
import { createInboundService, type InboundServicePorts } from './service.js';
import { createInboundStore } from './store.js';
import { createOutboundLookup } from './threads/outbound.js';
import { createThreads } from './threads/threads.js';

export interface InboundDeps {
  readonly events: EventService;
  readonly suppressions: SuppressionService;
  readonly health: HealthRegistry;
  readonly domains: {
    isVerifiedById(projectId: string, domainId: string): Promise<boolean>;
    get(projectId: string, id: string): Promise<{ id: string; name: string; status: string }>;
  };
  /** The delivery engine's VERP lookup: the message and recipients a bounce address names. */
  readonly delivery: { bounceTarget(address: string): Promise<BounceTarget | null> };
  /** Broadcasts: their messages' `mailto:` unsubscribe addresses (RCPT TO, then processing). */
  readonly unsubscribe?: UnsubscribePort;
  readonly emails: {
    send: (
      ...args: Parameters<InboundServicePorts['send']>
    ) => Promise<{ ref: Awaited<ReturnType<InboundServicePorts['send']>> }>;
    get: InboundServicePorts['sent'];
  };
}

export interface InboundEngine {
  readonly name: string;
  stop(): Promise<void>;
}

export function buildInbound(kernel: Kernel, deps: InboundDeps) {
  const { config, db } = kernel;
  const log = kernel.log.child({ capability: 'inbound' });
  const store = createInboundStore(kernel.store);
  const outbound = createOutboundLookup(db);
  const threads = createThreads(store, outbound);
  const suppress = suppressBesideOutcome({
    sqlite: kernel.store.sqlite,
    log,
    suppressions: deps.suppressions,
  });
  const sentMail = createSentMail({ db, events: deps.events, suppress });
  const bounceTarget = async (address: string) => (await deps.delivery.bounceTarget(address)) ?? undefined;
  const recordDsn = createDsnWriter({
    store: createDeliveryStore(kernel.store),
    events: deps.events,
    suppress,
    softBounceLimit: config.delivery.soft_bounce_limit,
  });
  const feedback = createFeedbackHandler(
    { bounceTarget, sentMessage: sentMail.sentMessage, recordDsn, recordComplaint: sentMail.recordComplaint },
    { feedbackLoopDomains: config.smtp_in.feedback_loop_domains },
  );
  const checkRecipient = createRecipientCheck(
    {
      findRoute: async (domain, local) => {
        const route = await store.routeByAddress(domain, local);
        return route && { id: route.id, projectId: route.project_id, domainId: route.domain_id };
      },
      isVerifiedDomain: (projectId, domainId) => deps.domains.isVerifiedById(projectId, domainId),
      bounceTarget,
      isUnsubscribeAddress: (address) => deps.unsubscribe?.isAddress(address) ?? false,
    },
    config.smtp_in.complaint_address,
  );
  const scanner = createScanner(config.clamav);
  const service = createInboundService({
    db,
    store,
    threads,
    outbound,
    ports: {
      domain: async (projectId, domainId) => {
        try {
          return await deps.domains.get(projectId, domainId);
        } catch (error) {
          if ((error as { status?: number }).status === 404) return undefined;
          throw error;
        }
      },
      send: async (principal, request, key) => (await deps.emails.send(principal, request, key)).ref,
      sent: (scope, id) => deps.emails.get(scope, id),
    },
  });

  let listener: InboundListener | undefined;
  let starting: Promise<void> | undefined;
  let startError: Error | undefined;
  let processor: Processor | undefined;
  let scanEngine: ScanEngine | undefined;
  let analyzer: Analyzer | undefined;

  if (config.smtp_in.enabled) {
    deps.health.register('smtp_in', () => {
      if (startError)
        return { status: 'unavailable', detail: `the listener could not start: ${startError.message}` };
      const address = listener?.address();
      return address
        ? { status: 'operational', detail: `listening on ${address.address}:${address.port}` }
        : { status: 'degraded', detail: 'starting' };
    });
    deps.health.register('scanner', async () => {
      if (scanEngine) return scanEngine.probe();
      return (await clamavHealth(scanner)) === 'ok'
        ? { status: 'operational' }
        : { status: 'degraded', detail: 'clamd does not answer; attachments stay pending' };
    });
  }

  async function tlsMaterial(): Promise<{ key: Buffer; cert: Buffer }> {
    const configured = config.smtp_in.tls_cert_file !== '' && config.smtp_in.tls_key_file !== '';
    const files = configured
      ? { certFile: config.smtp_in.tls_cert_file, keyFile: config.smtp_in.tls_key_file }
      : await ensureSelfSignedCert(join(config.storage.data_dir, 'tls'), config.smtp_in.hostname);
    return { key: await readFile(files.keyFile), cert: await readFile(files.certFile) };
  }

  return {
    ...service,
    store,
    /** The bound SMTP address once the listener runs (port 0 in tests becomes a real port). */
    address(): AddressInfo | undefined {
      return listener?.address();
    },
    /** Resolves when every spooled message has been processed (tests, benchmarks). */
    async settled(): Promise<void> {
      await processor?.idle();
    },
    /** Received messages being processed now, and their bytes (tests, operators). */
    processing(): { messages: number; bytes: number } {
      return processor?.load() ?? { messages: 0, bytes: 0 };
    },
    /** Messages in DATA now, and the bytes of them the listener holds in memory (tests, operators). */
    receiving(): { messages: number; bytes: number } {
      return listener?.receiving() ?? { messages: 0, bytes: 0 };
    },
    /** Runs the attachment scanner now and waits for it (tests). */
    async scanNow(): Promise<void> {
      await scanEngine?.runNow();
    },

    /**
     * Starts the spool, the scanner, the processor and the listener without holding up the rest
     * of the boot (a certificate may have to be generated first); `ready()` says when it listens.
     * A listener that cannot start (say, its port is taken) makes the `smtp_in` probe unavailable.
     */
    start(): InboundEngine {
      starting ??= startAll().catch((error: unknown) => {
        startError = error instanceof Error ? error : new Error(String(error));
        // A taken port is said in one line (the key, what to do); a stack helps only elsewhere.
        const detail =
          error instanceof ListenError ? { code: (error.cause as { code?: string }).code } : { err: error };
        log.error(detail, `the inbound SMTP listener could not start: ${startError.message}`);
      });
      const started = starting;
      const stopReceiving = async () => {
        await listener?.close();
        await processor?.stop();
        await analyzer?.close();
      };
      return {
        name: 'inbound',
        // The scan side stops beside the listener, not after it: its stop ends a scan in flight at
        // once rather than adding clamd's `timeout_ms` to the listener's grace. Attachments stored
        // meanwhile stay pending until the next start.
        async stop() {
          await started;
          const stopped = await Promise.allSettled([scanEngine?.stop(), stopReceiving()]);
          const failed = stopped.find((result) => result.status === 'rejected');
          if (failed) throw failed.reason;
        },
      };
    },

    /** The bound address once the listener runs; rejects when it could not start. */
    async ready(): Promise<AddressInfo> {
      await starting;
      if (startError) throw startError;
      const address = listener?.address();
      if (!address) throw new Error('the inbound listener was not started (smtp_in.enabled is false)');
      return address;
    },
  };

  async function startAll(): Promise<void> {
    const spool = await openSpool(join(config.storage.data_dir, 'inbound', 'spool'));
    const engine = startScanEngine({
      db,
      sqlite: kernel.store.sqlite,
      store,
      scanner,
      config: config.clamav,
      log,
    });
    scanEngine = engine;
    analyzer = createAnalyzer(config);
    const work = createProcessor({
      db,
      sqlite: kernel.store.sqlite,
      log,
      spool,
      store,
      threads,
      events: deps.events,
      analyzer,
      feedback,
      unsubscribe: deps.unsubscribe,
      onAttachments: () => engine.kick(),
      maxBytes: config.smtp_in.max_processing_bytes,
    });
    processor = work;
    await work.recover();
    listener = await startListener({
      config: config.smtp_in,
      shutdownTimeoutMs: parseDuration(config.server.shutdown_timeout),
      tls: await tlsMaterial(),
      log,
      checkRecipient,
      spool,
      onSpooled: ({ id, bytes, message }) => work.enqueue(id, bytes, message),
    });
  }
}

export type Inbound = ReturnType<typeof buildInbound>;
