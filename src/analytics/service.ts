/**
 * The analytics report (spec §2.8): built from the daily aggregates of the projection, so its
 * cost depends on the window (days × lanes rows), not on how many messages were sent. Before
 * reporting it lets the projection catch up (for up to 2 s, so a huge backlog after a restore
 * cannot hold a request), so a report normally reflects every committed event.
 *
 * Counting: every recipient of an accepted message counts once, on the UTC day the message was
 * accepted, under its current outcome. Rates are 0 when there is nothing to divide by. A key sees
 * the traffic of its own mode only: test sends (sandbox bounces and complaints included) never
 * move the live numbers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { projectionRuns } from '../events/projection-runs.js';
import type { KeyMode } from '../platform/db/tables.js';
import { dayNumber, dayString } from './days.js';
import { LatencyHistogram } from './latency-histogram.js';
import type { BatchOutcome } from './projector.js';
import type { AnalyticsReport } from './schemas.js';
import type { AnalyticsStore } from './store.js';
import { COUNTERS, type Counters, zeroCounters } from './transitions.js';

const BATCH = 1000;
/**
 * A report waits this long for the projection to catch up, then answers with what it has. On
 * PostgreSQL a batch is a dozen round trips, and a report may wait for a run in progress before
 * its own: it waits longer there (`reportWaitMs`).
 */
const REPORT_WAIT_MS = 2000;
/** Events of one catch-up run at most; a longer backlog is finished by the next run. */
const MAX_CATCH_UP_EVENTS = 1_000_000;
/** Parsed latency histograms kept between reports (about 90 days × 6 lanes × 20 projects). */
const HISTOGRAM_CACHE = 10_000;

const ratio = (part: number, whole: number): number => (whole > 0 ? part / whole : 0);
const UNROUTED = 'unrouted';

/**
 * The projection's batch, either adapter's: what it read and whether more may wait, or null when
 * SQLite's connection is busy. SQLite's batch also stops at a time bound (projector.ts).
 */
export interface ProjectionBatches {
  runBatch(limit: number): BatchOutcome | null | Promise<BatchOutcome | null>;
  /**
   * Whether committed events are still unread, some perhaps held back by a transaction running
   * elsewhere (PostgreSQL's commit-safe order, events/log-pg.ts): a catch-up goes on, for a
   * while, so that a report counts every event committed before it was asked.
   */
  waiting?(): Promise<boolean>;
}

/** How long a catch-up waits for events held back by another transaction (then reports without them). */
const HELD_BACK_WAIT_MS = 5000;

export function createAnalyticsService(deps: {
  store: AnalyticsStore;
  projector: ProjectionBatches;
  reportWaitMs?: number;
}) {
  const { store, projector } = deps;
  const reportWaitMs = deps.reportWaitMs ?? REPORT_WAIT_MS;

  // Rows of past days rarely change, so their parsed histograms are kept (merging never alters
  // them); a row whose text changed is parsed again.
  const histograms = new Map<string, { text: string; histogram: LatencyHistogram }>();
  function parsed(
    projectId: string,
    mode: KeyMode,
    row: { day: number; lane: string; latency: string },
  ): LatencyHistogram {
    const key = `${projectId}\u0000${mode}\u0000${row.day}\u0000${row.lane}`;
    const cached = histograms.get(key);
    if (cached && cached.text === row.latency) return cached.histogram;
    const histogram = LatencyHistogram.parse(row.latency);
    if (histograms.size >= HISTOGRAM_CACHE) histograms.delete(histograms.keys().next().value as string);
    histograms.set(key, { text: row.latency, histogram });
    return histogram;
  }

  async function drain(waitHeldBack: boolean): Promise<void> {
    const waitUntil = Date.now() + HELD_BACK_WAIT_MS;
    for (let read = 0; read < MAX_CATCH_UP_EVENTS; ) {
      const ran = projector.runBatch(BATCH);
      // SQLite's adapter answers synchronously: no promise on its path.
      const outcome = ran instanceof Promise ? await ran : ran;
      if (outcome === null) {
        // Another transaction holds the connection; let it finish.
        await sleep(1);
        continue;
      }
      read += outcome.read;
      if (!outcome.more) {
        if (
          !waitHeldBack ||
          projector.waiting === undefined ||
          Date.now() > waitUntil ||
          !(await projector.waiting())
        )
          return;
        await sleep(20);
        continue;
      }
      // Yield between batches so HTTP requests are served during a long catch-up (the requests
      // waiting now, not after a timer's millisecond).
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  const runs = projectionRuns(drain);
  const { catchUp } = runs;

  /** The report of a project's live or test traffic (the mode of the key that asks). */
  async function report(
    projectId: string,
    mode: KeyMode,
    days: number,
    now = Date.now(),
  ): Promise<AnalyticsReport> {
    const wait = new AbortController();
    await Promise.race([
      catchUp(),
      sleep(reportWaitMs, undefined, { signal: wait.signal }).catch(() => undefined),
    ]);
    wait.abort();
    const last = dayNumber(now);
    const first = last - days + 1;
    const byDay = new Map<number, Counters>();
    const byLane = new Map<string, { counters: Counters; latency: LatencyHistogram }>();
    const overall = zeroCounters();
    const overallLatency = new LatencyHistogram();
    for (const row of await store.window(projectId, mode, first, last)) {
      const day = byDay.get(row.day) ?? zeroCounters();
      byDay.set(row.day, day);
      const lane = row.lane || UNROUTED;
      let provider = byLane.get(lane);
      if (!provider) {
        provider = { counters: zeroCounters(), latency: new LatencyHistogram() };
        byLane.set(lane, provider);
      }
      for (const name of COUNTERS) {
        day[name] += row[name];
        provider.counters[name] += row[name];
        overall[name] += row[name];
      }
      const histogram = parsed(projectId, mode, row);
      provider.latency.merge(histogram);
      overallLatency.merge(histogram);
    }

    const daily = [];
    for (let day = first; day <= last; day++) {
      const c = byDay.get(day) ?? zeroCounters();
      daily.push({
        day: dayString(day),
        accepted: c.accepted,
        queued: c.queued,
        delivered: c.delivered,
        bounced: c.bounced,
        deferred: c.deferred,
        complained: c.complained,
      });
    }
    const providers = [...byLane]
      .filter(([, provider]) => provider.counters.accepted > 0)
      .map(([name, { counters: c, latency }]) => ({
        provider: name,
        total: c.accepted,
        queued: c.queued,
        delivered: c.delivered,
        bounced: c.bounced,
        deferred: c.deferred,
        complained: c.complained,
        median_delivery_latency_ms: latency.median() ?? 0,
        delivery_rate: ratio(c.delivered, c.accepted),
      }))
      .sort((a, b) => b.total - a.total || a.provider.localeCompare(b.provider));

    return {
      days,
      sent: overall.accepted,
      delivered: overall.delivered,
      bounced: overall.bounced,
      deferred: overall.deferred,
      complained: overall.complained,
      delivery_rate: ratio(overall.delivered, overall.accepted),
      bounce_rate: ratio(overall.bounced, overall.accepted),
      complaint_rate: ratio(overall.complained, overall.delivered),
      unique_opens: overall.unique_opens,
      unique_clicks: overall.unique_clicks,
      open_rate: ratio(overall.unique_opens, overall.delivered),
      click_rate: ratio(overall.unique_clicks, overall.delivered),
      machine_opens: overall.machine_opens,
      machine_clicks: overall.machine_clicks,
      median_delivery_latency_ms: overallLatency.median() ?? 0,
      daily,
      providers,
    };
  }

  return {
    catchUp,
    /** The background run (engine.ts): what is readable now, without waiting for held-back events. */
    follow: runs.follow,
    report,
    /**
     * The provider lane that carried a message to a recipient, as the projection recorded it;
     * undefined when unknown (not yet routed, or the record is past retention). The reputation
     * center asks it for events that name no lane (asynchronous DSNs, complaints).
     */
    laneOf(messageId: string, recipient: string): string | undefined {
      const lane = store.laneOf(messageId, recipient);
      // The reputation projection asks synchronously on SQLite; on PostgreSQL it reads lanes in bulk.
      if (lane instanceof Promise) throw new Error('laneOf is synchronous, SQLite only');
      return lane === '' ? undefined : lane;
    },
    /** The lanes of several recipients at once, by `message_id\u0000recipient` (PostgreSQL's reputation projection). */
    lanesOf(pairs: readonly { message_id: string; recipient: string }[]): Promise<Map<string, string>> {
      return store.lanesOf(pairs);
    },
    /**
     * Retention: settled recipient records last changed before `cutoff` go (pending ones stay);
     * the daily aggregates keep their counts.
     */
    async purgeBefore(cutoff: number): Promise<number> {
      return store.purgeSettledBefore(cutoff);
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
