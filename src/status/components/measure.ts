/**
 * Measures each component from the running process, never from what an operator remembers to say:
 *
 * - api: the event loop's delay (a saturated loop answers every request late);
 * - database: its health probe;
 * - delivery: the delivery engine's probe (running, claiming, no lane blocked, nothing overdue)
 *   and the share of deferred attempts per lane over `status.deferral_window`;
 * - inbound: the SMTP listener's and the virus scanner's probes;
 * - webhooks: the backlog, how long the oldest due delivery has waited to be sent.
 *
 * Components that the config switches off (delivery, inbound) are not reported. Each measurement
 * carries a short public reason; probe details (errors, paths) stay in the logs.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { HealthRegistry, ProbeResult } from '../../health/registry.js';
import type { Config } from '../../platform/config/schema.js';
import { parseDuration } from '../../platform/config/duration.js';
import { type ComponentId, type ComponentState, worst } from '../model.js';
import { type AttemptCounts, DeferralWindow } from './deferrals.js';

export interface Measurement {
  readonly state: ComponentState;
  /** Why, in words fit for the public page. */
  readonly reason: string;
}

export type Measurements = ReadonlyMap<ComponentId, Measurement>;

export interface MeasureDeps {
  readonly config: Config;
  readonly health: HealthRegistry;
  readonly delivery: { attemptCountsAfter(afterId: number | undefined): Promise<AttemptCounts> };
  readonly webhooks: { backlog(now: number): Promise<{ due: number; oldestDueAt: number | null }> };
}

/** Event-loop delay (median over a measurement interval) that makes the API degraded, then a partial outage. */
const LOOP_DELAY_DEGRADED_MS = 500;
const LOOP_DELAY_OUTAGE_MS = 2000;

const OK: Measurement = { state: 'operational', reason: 'operating normally' };

function fromProbe(probe: ProbeResult | undefined, what: string): Measurement {
  if (!probe) return OK;
  if (probe.status === 'unavailable') return { state: 'major_outage', reason: `${what} is unavailable` };
  if (probe.status === 'degraded') return { state: 'degraded', reason: `${what} is degraded` };
  return OK;
}

function worstOf(...measurements: Measurement[]): Measurement {
  const state = worst(measurements.map((m) => m.state));
  return measurements.find((m) => m.state === state) ?? OK;
}

export function createMeasurer(deps: MeasureDeps) {
  const { config } = deps;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const deferrals = new DeferralWindow(
    {
      windowMs: parseDuration(config.status.deferral_window),
      minAttempts: config.status.deferral_min_attempts,
      degradedShare: config.status.deferral_degraded,
      outageShare: config.status.deferral_outage,
    },
    (afterId) => deps.delivery.attemptCountsAfter(afterId),
  );
  const backlogDegradedMs = parseDuration(config.status.webhook_backlog_degraded);
  const backlogOutageMs = parseDuration(config.status.webhook_backlog_outage);

  function api(): Measurement {
    const medianMs = loop.count > 0 ? loop.percentile(50) / 1e6 : 0;
    loop.reset();
    if (medianMs >= LOOP_DELAY_OUTAGE_MS)
      return { state: 'partial_outage', reason: 'requests are answered very late' };
    if (medianMs >= LOOP_DELAY_DEGRADED_MS)
      return { state: 'degraded', reason: 'requests are answered late' };
    return OK;
  }

  async function delivery(probe: ProbeResult | undefined, now: number): Promise<Measurement> {
    const lanes = await deferrals.measure(now);
    const byLane = lanes
      .filter((lane) => lane.state !== 'operational')
      .map(
        (lane): Measurement => ({
          state: lane.state,
          reason: `${Math.round((lane.deferred / lane.total) * 100)}% of recent delivery attempts on the ${lane.lane} lane were deferred`,
        }),
      );
    return worstOf(fromProbe(probe, 'the delivery engine'), ...byLane);
  }

  async function webhooks(now: number): Promise<Measurement> {
    const { oldestDueAt } = await deps.webhooks.backlog(now);
    const waited = oldestDueAt === null ? 0 : now - oldestDueAt;
    if (waited >= backlogOutageMs)
      return { state: 'partial_outage', reason: 'webhook deliveries are far behind' };
    if (waited >= backlogDegradedMs) return { state: 'degraded', reason: 'webhook deliveries are behind' };
    return OK;
  }

  return {
    async measure(now = Date.now()): Promise<Map<ComponentId, Measurement>> {
      const report = await deps.health.report();
      const out = new Map<ComponentId, Measurement>();
      out.set('api', api());
      out.set('database', fromProbe(report.components.database, 'the database'));
      if (config.delivery.enabled) out.set('delivery', await delivery(report.components.queue, now));
      if (config.smtp_in.enabled) {
        const scanner = fromProbe(report.components.scanner, 'the virus scanner');
        out.set(
          'inbound',
          worstOf(fromProbe(report.components.smtp_in, 'the SMTP listener'), {
            // Mail is still received without a scanner; its attachments wait to be scanned.
            state: scanner.state === 'operational' ? 'operational' : 'degraded',
            reason: 'attachments of received mail wait for the virus scanner',
          }),
        );
      }
      out.set('webhooks', await webhooks(now));
      return out;
    },
    close(): void {
      loop.disable();
    },
  };
}

export type Measurer = ReturnType<typeof createMeasurer>;
