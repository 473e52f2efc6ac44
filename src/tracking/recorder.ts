/**
 * Records hits without making a response wait: the endpoints hand each hit to `record`, which
 * only keeps it in memory; a flush every `flushMs` classifies what is ready and writes it (the hit
 * rows and their `email.opened`/`email.clicked` events, one transaction of at most 50 hits,
 * committed without waiting for the disk; the event log's readers are told on the next turn). A
 * click waits `holdMs` (one second) first, so that the clicks of the same message around it are
 * known when it is judged (`all_links_at_once`).
 *
 * A clean stop writes everything held, and from then on each hit is written before its response
 * goes (the HTTP server is closing beside it, and the store closes only after both): no hit a
 * client was answered for is lost. A crash loses at most the last `holdMs` + `flushMs` of hits.
 */
import type SQLite from 'better-sqlite3';
import type { MessageFacts } from '../emails/store-facts.js';
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import { writeTransaction } from '../platform/db/savepoints.js';
import type { Logger } from '../platform/log.js';
import { truncateIp } from './classify/networks.js';
import { classify } from './classify/rules.js';
import { ClickBursts, clicksByMessage, SAME_SECOND_MS } from './click-bursts.js';
import { countedRecipient, hitEvent, hitRow, type PendingHit } from './hit-events.js';
import type { TrackingStore } from './store.js';

export interface RecorderDeps {
  readonly db: Db;
  readonly sqlite: SQLite.Database;
  readonly store: Pick<TrackingStore, 'insertHitsWithin'>;
  readonly events: Pick<EventService, 'appendBatchWithin' | 'notify'>;
  readonly messageFacts: (ids: readonly string[]) => Promise<Map<string, MessageFacts>>;
  readonly scannerWindowMs: number;
  readonly log: Logger;
  readonly holdMs?: number;
  readonly flushMs?: number;
  /** Hits held at most; past it the oldest are written at once. */
  readonly maxHeld?: number;
}

/**
 * Hits written per transaction at most: the write runs on the event loop that answers hits, so
 * a burst is written in slices with requests answered in between. A hit costs 10 to 40 µs of the
 * loop to write (its event and row, and about a page of WAL: both tables index the message, so
 * hits of different messages dirty pages of their own); 50 keep a slice to a few milliseconds
 * (200 made slices of up to 10 ms of CPU under the tracking benchmark). Cutting a flush in slices
 * costs little: most of the pages written are per hit, not per transaction.
 */
const MAX_PER_WRITE = 50;
/** Message facts kept between flushes: long once the delivery time is known, briefly before. */
const FACTS_TTL_MS = 60_000;
const FACTS_UNDELIVERED_TTL_MS = 1000;
const FACTS_CACHED = 20_000;

export class HitRecorder {
  readonly #deps: RecorderDeps;
  readonly #holdMs: number;
  readonly #flushMs: number;
  readonly #maxHeld: number;
  /** Opens held: each is due at once. */
  #opens: PendingHit[] = [];
  /**
   * Clicks held, in the order they came: each is due `holdMs` after it came, so the due ones are
   * always at the front (a flush takes them from there instead of looking through a second's
   * worth of clicks, thousands under load, on every slice).
   */
  #clicks: PendingHit[] = [];
  /** The clicks just written, for the "every link at once" rule (click-bursts.ts). */
  readonly #bursts: ClickBursts;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #stopping = false;
  #written = 0;
  #notifying = false;
  readonly #facts = new Map<string, { facts: MessageFacts; until: number }>();

  constructor(deps: RecorderDeps) {
    this.#deps = deps;
    this.#holdMs = deps.holdMs ?? SAME_SECOND_MS;
    this.#bursts = new ClickBursts(this.#holdMs);
    this.#flushMs = deps.flushMs ?? 20;
    this.#maxHeld = deps.maxHeld ?? 100_000;
  }

  /** Keeps a hit to be written soon; returns at once (a promise only while stopping). */
  record(hit: PendingHit): Promise<void> | undefined {
    (hit.kind === 'open' ? this.#opens : this.#clicks).push(hit);
    if (this.#stopping) return this.flush(true);
    if (this.#opens.length + this.#clicks.length >= this.#maxHeld) this.#kick(true);
    this.#schedule(this.#flushMs);
    return undefined;
  }

  /** Hits written since the start (benchmarks and tests). */
  get written(): number {
    return this.#written;
  }

  /** Writes what is ready (`all`: everything held); flushes run one after another. */
  flush(all: boolean): Promise<void> {
    const run = this.#flushing.then(async () => {
      // Everything, a slice at a time, with requests answered between the slices.
      while ((await this.#flushOnce(all)) && all) await new Promise((resolve) => setImmediate(resolve));
    });
    this.#flushing = run.catch(() => undefined);
    return run;
  }

  /** Writes every hit held; hits arriving after this are written before they are answered. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush(true);
  }

  /** A flush nobody waits for: its failure is logged (and retried) by the flush itself. */
  #kick(all: boolean): void {
    this.flush(all).catch(() => undefined);
  }

  #schedule(ms: number): void {
    if (this.#stopping || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#kick(false);
    }, ms);
  }

  /** Writes one slice of what is due; true when more is due. */
  async #flushOnce(all: boolean): Promise<boolean> {
    const now = Date.now();
    const due = (click: PendingHit | undefined) =>
      click !== undefined && (all || now - click.at >= this.#holdMs || click.at > now);
    // The oldest due hits first, as they came.
    const ready: PendingHit[] = [];
    let o = 0;
    let c = 0;
    while (ready.length < MAX_PER_WRITE) {
      const open = this.#opens[o];
      const click = due(this.#clicks[c]) ? this.#clicks[c] : undefined;
      if (open !== undefined && (click === undefined || open.at <= click.at)) {
        ready.push(open);
        o++;
      } else if (click !== undefined) {
        ready.push(click);
        c++;
      } else break;
    }
    const opens = this.#opens.splice(0, o);
    const clicks = this.#clicks.splice(0, c);
    const more = this.#opens.length > 0 || due(this.#clicks[0]);
    // What is due beyond this slice goes next, after the requests waiting now are answered.
    if (more && !all) this.#schedule(0);
    else if (this.#opens.length + this.#clicks.length > 0) this.#schedule(this.#flushMs);
    if (ready.length === 0) return false;
    try {
      await this.#write(ready, this.#clicks, now);
      this.#written += ready.length;
      return more;
    } catch (error) {
      // Kept for the next flush: a busy or full disk must not lose what was recorded.
      this.#opens = opens.concat(this.#opens);
      this.#clicks = clicks.concat(this.#clicks);
      this.#deps.log.error({ err: error, hits: ready.length }, 'recording tracking hits failed; retrying');
      this.#schedule(1000);
      throw error;
    }
  }

  async #write(ready: readonly PendingHit[], held: readonly PendingHit[], now: number): Promise<void> {
    const { db, sqlite, store, events, scannerWindowMs } = this.#deps;
    const facts = await this.#factsOf(ready, now);
    const clicks = clicksByMessage(ready, held);
    const judged = ready.flatMap((hit) => {
      const message = facts.get(hit.messageId);
      if (!message) return [];
      const verdict = classify(
        {
          kind: hit.kind,
          method: hit.method,
          userAgent: hit.userAgent,
          ip: hit.ip,
          at: hit.at,
          deliveredAt: deliveredAt(message),
          allLinksAtOnce: hit.kind === 'click' && this.#bursts.allLinksAtOnce(hit, clicks),
        },
        scannerWindowMs,
      );
      return [{ hit, message, verdict }];
    });
    this.#bursts.remember(ready, now);
    if (judged.length === 0) return;
    // One write transaction on either engine (relaxed on SQLite: a crash loses at most the last
    // flushes, as the header says); the event log's and the store's ports write within it.
    await writeTransaction(
      db,
      sqlite,
      async (trx) => {
        const made = await events.appendBatchWithin(
          trx,
          judged.map(({ hit, message, verdict }) => hitEvent(hit, message, verdict)),
        );
        await store.insertHitsWithin(
          trx,
          judged.map(({ hit, message, verdict }, i) =>
            hitRow(hit, message, verdict, truncateIp(hit.ip), (made[i] as { id: string }).id),
          ),
        );
      },
      { relaxed: true },
    );
    this.#notify();
  }

  /**
   * Tells the event log's readers on the next turn, not in the write's: the webhook fan-out reads
   * its page as soon as it is told, and run within the write's turn it made one stall of both, with
   * the requests in flight waiting behind it (one notice for the slices written meanwhile).
   */
  #notify(): void {
    if (this.#notifying) return;
    this.#notifying = true;
    setImmediate(() => {
      this.#notifying = false;
      this.#deps.events.notify();
    });
  }

  /** The facts of the hits' messages: from the cache, else asked for all at once. */
  async #factsOf(hits: readonly PendingHit[], now: number): Promise<Map<string, MessageFacts>> {
    const found = new Map<string, MessageFacts>();
    const missing = new Set<string>();
    for (const hit of hits) {
      const cached = this.#facts.get(hit.messageId);
      if (cached && cached.until > now) found.set(hit.messageId, cached.facts);
      else missing.add(hit.messageId);
    }
    if (missing.size === 0) return found;
    for (const [id, facts] of await this.#deps.messageFacts([...missing])) {
      found.set(id, facts);
      if (this.#facts.size >= FACTS_CACHED) this.#facts.delete(this.#facts.keys().next().value as string);
      this.#facts.set(id, {
        facts,
        until: now + (deliveredAt(facts) === null ? FACTS_UNDELIVERED_TTL_MS : FACTS_TTL_MS),
      });
    }
    return found;
  }
}

/** When the counted recipient's MX accepted the message, else the first recipient's that did. */
function deliveredAt(message: MessageFacts): number | null {
  const counted = countedRecipient(message);
  const own = message.recipients.find((r) => r.email === counted)?.deliveredAt ?? null;
  if (own !== null) return own;
  const times = message.recipients.map((r) => r.deliveredAt).filter((t): t is number => t !== null);
  return times.length > 0 ? Math.min(...times) : null;
}
