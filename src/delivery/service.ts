/**
 * The delivery capability as other parts of Posthorn see it: start the engine (background.ts),
 * report the queue (health probe, `posthorn queue stats`), and map a VERP return path back to
 * the message and recipients it names (the inbound listener, for bounces). Building the service
 * starts nothing: CLI commands build services too.
 *
 * The capability's rooms, in the order a message passes through them: queue/ (jobs and their
 * leases), routing/ (lanes, MX, MTA-STS, source addresses), compose/ (composition, DKIM signing,
 * the admission stage), smtp/ (the SMTP transaction), outcomes/ (outcomes recorded, retries);
 * replies/ is the vocabulary under them all (SMTP replies, bounce classes, outcomes). A room imports
 * only from the rooms before it, never from a later one nor from this top level, which puts them
 * together: this service, the engine (engine.ts) and the steps of one job (steps.ts).
 * test/layout/rooms.test.ts holds the order.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Engine } from '../background.js';
import type { EventService } from '../events/service.js';
import type { HealthRegistry, ProbeResult } from '../health/registry.js';
import type { Kernel } from '../kernel.js';
import { parseDuration } from '../platform/config/duration.js';
import { createDnsResolver } from '../platform/dns/resolver.js';
import { DeliveryEngine } from './engine.js';
import { Lane, type LaneSettings } from './smtp/lane.js';
import { createLaneTable } from './routing/lanes.js';
import { MtaSts } from './routing/mta-sts.js';
import { MxConnection } from './smtp/mx-connection.js';
import { OutcomeWriter, type SuppressionPort } from './outcomes/outcome-writer.js';
import { Prerender } from './compose/prerender.js';
import { MarketingPace } from './marketing-pace.js';
import type { BulkActivity } from '../platform/bulk-activity.js';
import { createRawStore } from './compose/raw-store.js';
import { marketingGate, type PrioritizedRenderer } from './compose/render-priority.js';
import { type AheadMessage, renderAhead } from './compose/render-ahead.js';
import { createRenderer, lazyRenderer } from './compose/renderer.js';
import { retryPolicyFrom } from './outcomes/retry-policy.js';
import { createSigningKeys, type DomainKeysSource } from './compose/signing-keys.js';
import type { TrackingPort } from './compose/tracking-step.js';
import { createDeliveryStore, type LaneDepth, type RecipientRow } from './queue/store.js';
import type { SourcePort } from './routing/source-addresses.js';
import { parseVerp, verpKey } from './smtp/verp.js';

export type { DomainKeysSource } from './compose/signing-keys.js';

/** The send API, as delivery hears of accepted messages (to render them at once, prerender.ts). */
export interface AdmissionSource {
  /** `listener` gets the IDs of live messages once their acceptance has committed. */
  onAdmitted(listener: (messageIds: readonly string[]) => void): () => void;
}

export interface DeliveryDeps {
  readonly events: EventService;
  readonly admissions: AdmissionSource;
  readonly suppressions: SuppressionPort;
  readonly domains: DomainKeysSource;
  readonly health: HealthRegistry;
  /** Which source address a project's mail leaves from (dedicated IPs); absent, delivery.source_ips shared by all. */
  readonly sources?: SourcePort;
  /** Open and click tracking's input to composition (compose/tracking-step.ts). */
  readonly tracking?: TrackingPort;
  /** Told while the engine holds marketing jobs (platform/bulk-activity.ts). */
  readonly bulk?: Pick<BulkActivity, 'mark'>;
}

/** What a VERP return path names: the message and the recipients the bounced transaction carried. */
export interface BounceTarget {
  readonly projectId: string;
  readonly messageId: string;
  readonly recipients: readonly Pick<RecipientRow, 'id' | 'email' | 'status'>[];
}

const BACKLOG_MS = 15 * 60_000;
const BLOCK_SHOWN_MS = 60 * 60_000;

export function createDeliveryService(kernel: Kernel, deps: DeliveryDeps) {
  const store = createDeliveryStore(kernel.store);
  const raw = createRawStore(kernel.store);
  const key = verpKey(kernel.masterKey);
  const log = kernel.log.child({ capability: 'delivery' });
  let engine: DeliveryEngine | null = null;
  let prerender: Prerender | null = null;
  let renderers: PrioritizedRenderer | null = null;
  let lanes: Map<string, Lane> = new Map();

  const keys = createSigningKeys(deps.domains, kernel.config.sandbox.from);

  const probe = async (): Promise<ProbeResult> => {
    if (engine === null || !engine.running)
      return { status: 'unavailable', detail: 'the delivery engine is not running' };
    if (engine.lastError !== null)
      return { status: 'degraded', detail: `claiming jobs failed: ${engine.lastError}` };
    const now = Date.now();
    const blocked = [...lanes.values()].filter(
      (lane) => lane.blocked !== null && now - lane.blocked.at < BLOCK_SHOWN_MS,
    );
    if (blocked.length > 0) {
      return {
        status: 'degraded',
        detail: `reputation block on lane ${blocked.map((l) => l.key).join(', ')}`,
      };
    }
    const oldest = await store.oldestDue();
    if (oldest !== null && now - oldest > BACKLOG_MS) {
      return { status: 'degraded', detail: `jobs overdue since ${new Date(oldest).toISOString()}` };
    }
    return { status: 'operational', detail: `${engine.held} jobs in progress` };
  };

  /** The engine: lanes, the outcome writer and the job loop, rendering with `renderer`. */
  function startEngine(renderer: PrioritizedRenderer, admission: Prerender): DeliveryEngine {
    const config = kernel.config.delivery;
    const dns = createDnsResolver(kernel.config);
    const laneTable = createLaneTable(config.lanes);
    const extraCa = config.tls_ca_file === '' ? undefined : readFileSync(config.tls_ca_file, 'utf8');
    const ca = extraCa === undefined ? undefined : [...rootCertificates, extraCa].join('\n');
    const settings: LaneSettings = {
      port: config.port,
      ehloName: config.hostname,
      tls: config.tls,
      localAddresses: config.source_ips,
      connectTimeoutMs: parseDuration(config.connect_timeout),
      commandTimeoutMs: parseDuration(config.smtp_timeout),
      idleTimeoutMs: parseDuration(config.idle_timeout),
      ca,
    };
    lanes = new Map();
    for (const traffic of ['transactional', 'marketing'] as const) {
      for (const laneConfig of laneTable.lanes(traffic)) {
        const lane = new Lane(laneConfig, {
          dns,
          settings,
          log,
          connect: (t, o) => MxConnection.open(t, o),
          ...(deps.sources ? { sources: deps.sources } : {}),
        });
        lanes.set(lane.key, lane);
      }
    }
    const mtaSts = config.mta_sts ? new MtaSts({ dns, store, log, port: config.mta_sts_port, ca }) : null;
    const writer = new OutcomeWriter({
      db: kernel.db,
      sqlite: kernel.store.sqlite,
      store,
      events: deps.events,
      suppressions: deps.suppressions,
      retry: retryPolicyFrom(config),
      softBounceLimit: config.soft_bounce_limit,
      log,
    });
    const running = new DeliveryEngine({
      store,
      dns,
      laneTable,
      lanes,
      steps: {
        store,
        dns,
        mtaSts,
        renderer,
        prerender: admission,
        keys,
        tracking: deps.tracking,
        verpKey: key,
        bounceSubdomain: config.bounce_subdomain,
        testDomain: kernel.config.sandbox.test_domain,
        log,
        ...(deps.sources ? { sources: deps.sources } : {}),
      },
      writer,
      log,
      leaseMs: parseDuration(config.lease),
      pollMs: parseDuration(config.poll_interval),
      claimBatch: config.claim_batch,
      drainMs: parseDuration(config.drain_timeout),
      onWake: (wake) => deps.events.onAppended(wake),
      ...(deps.bulk ? { bulk: deps.bulk } : {}),
      pace: new MarketingPace({
        max: laneTable
          .lanes('marketing')
          .reduce((sum, l) => sum + (lanes.get(`marketing/${l.name}`)?.highWater ?? 0), 0),
        onRaise: () => engine?.wake(),
      }),
    });
    engine = running;
    running.start();
    deps.health.register('queue', probe);
    return running;
  }

  return {
    /**
     * Starts the render workers and the admission stage (prerender.ts), and with `deliver`
     * (config delivery.enabled) the engine, which registers the `queue` health probe.
     */
    start({ deliver }: { readonly deliver: boolean }): Engine {
      // With the engine, the threads start now (the first delivery should not wait for them);
      // without it, with the first message accepted, so an API-only server starts none.
      // Marketing renders take at most two places per render thread at a time (render-priority.ts).
      const pool = (deliver ? createRenderer : lazyRenderer)(
        kernel.config.dkim.workers,
        kernel.store.workerAccess,
      );
      const renderer = marketingGate(pool, 2 * pool.threads);
      renderers = renderer;
      const admission = new Prerender({ store, raw, renderer, keys, tracking: deps.tracking, log });
      const unsubscribe = deps.admissions.onAdmitted((ids) => admission.enqueue(ids));
      prerender = admission;
      const running = deliver ? startEngine(renderer, admission) : null;
      log.info(
        { render_threads: renderer.threads, engine: running !== null },
        running === null ? 'admission rendering started; delivery is disabled' : 'delivery engine started',
      );
      return {
        name: 'delivery',
        async stop() {
          unsubscribe();
          await Promise.all([admission.stop(), running?.stop()]);
          renderers = null;
          await renderer.close();
        },
      };
    },

    /**
     * Composes and signs a message not queued yet (a broadcast prepared ahead, render-ahead.ts) at
     * marketing priority; undefined when its sending domain is gone. Throws before `start`.
     */
    renderAhead(message: AheadMessage) {
      if (renderers === null) throw new Error('the render workers are not running');
      return renderAhead(
        { renderer: renderers, keys, ...(deps.tracking ? { tracking: deps.tracking } : {}) },
        message,
      );
    },

    /** Resolves once every accepted message waiting for admission rendering has it (benchmarks, tests). */
    prerendered: (): Promise<void> => prerender?.idle() ?? Promise.resolve(),

    /** The `queue` health probe. */
    probe,

    /** Retention of renderings left by messages that never ended (`retention.messages_days`). */
    purgeRawBefore: (cutoff: number) => raw.purgeBefore(cutoff),

    /** Retention of the attempt log (`retention.events_days`, with the events it explains). */
    purgeAttemptsBefore: (cutoff: number) => store.purgeAttemptsBefore(cutoff),

    /** Per-lane depth, in flight, deferred and oldest job, with what the running engine knows. */
    async stats(
      now = Date.now(),
    ): Promise<(LaneDepth & { connections: number | null; blocked: string | null })[]> {
      const depth = await store.depth(now);
      return depth.map((row) => {
        const lane = lanes.get(`${row.traffic}/${row.lane}`);
        return { ...row, connections: lane?.connections ?? null, blocked: lane?.blocked?.reply ?? null };
      });
    },

    /** SMTP transactions tried since attempt `afterId`, per lane and outcome (the status area's deferral rate). */
    attemptCountsAfter: (afterId: number | undefined) => store.attemptCountsAfter(afterId),

    /**
     * The message and recipients a VERP return path names (for a DSN arriving at the inbound
     * listener), or null when the address is not a valid one of ours.
     *
     * @example const target = await services.delivery.bounceTarget('b+r01jd...-3kq9x0m2ab@bounces.example.com');
     */
    async bounceTarget(address: string): Promise<BounceTarget | null> {
      const parsed = parseVerp(key, address);
      if (parsed === null) return null;
      const found = await store.verpTarget(parsed.kind, parsed.id);
      if (found === null) return null;
      return {
        projectId: found.projectId,
        messageId: found.messageId,
        recipients: found.recipients.map((r) => ({ id: r.id, email: r.email, status: r.status })),
      };
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
