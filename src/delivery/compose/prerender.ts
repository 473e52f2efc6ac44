/**
 * The admission stage of delivery: a live message is composed and DKIM-signed once, in the render
 * workers, after its acceptance has committed (the 202 does not wait for it), and stored in its
 * DATA form (message_raw). Deliveries then relay those bytes: each job of a message to several
 * domains and each retry sends the same signed message without composing or signing it again.
 * Postfix with a signing milter and KumoMTA sign on receipt in the same way; docs/decisions/delivery.md has
 * why this departs from DESIGN.md §2, where delivery renders.
 *
 * Admission comes first: renders start once no send has been accepted for `quietMs` (250 ms), so a
 * flood of sends keeps the CPU; a delivery that gets to a message before this stage does renders
 * it for itself, as before this stage existed (`settle`). So mail is signed ahead of delivery
 * when there is time for it: a backlog, a quiet moment, the engine off.
 *
 * Nothing depends on it having run: a delivery that finds no stored rendering, or one signed with
 * keys the domain no longer has, renders the message itself (render-task.ts). So the queue lives in
 * memory only, is bounded, and is dropped at a stop or a crash.
 */
import type { Logger } from '../../platform/log.js';
import { composeFields, headerRecipients } from './compose-fields.js';
import { FINAL_MESSAGE_STATUSES } from '../queue/message-status.js';
import type { RawRow, RawStore } from './raw-store.js';
import type { Renderer } from './renderer.js';
import { signingIdentity, UNSIGNED } from './signing-identity.js';
import type { SigningKeysPort } from './signing-keys.js';
import { type TrackingPort, trackingInput } from './tracking-step.js';
import type { DeliveryStore } from '../queue/store.js';

export interface PrerenderDeps {
  readonly store: Pick<DeliveryStore, 'load'>;
  readonly raw: Pick<RawStore, 'write'>;
  readonly renderer: Renderer;
  readonly keys: SigningKeysPort;
  /** Open and click tracking's input to composition (tracking-step.ts); absent: nothing is tracked. */
  readonly tracking?: TrackingPort;
  readonly log: Logger;
  /** Messages waiting for a render thread; more are left to delivery. */
  readonly maxQueued?: number;
  /** Renders in flight at once. */
  readonly concurrency?: number;
  /** Renders start only once no message has been accepted for this long (admission comes first). */
  readonly quietMs?: number;
}

const DEFAULT_MAX_QUEUED = 50_000;
const DEFAULT_QUIET_MS = 250;
const FINAL = new Set<string>(FINAL_MESSAGE_STATUSES);

export class Prerender {
  readonly #deps: PrerenderDeps;
  readonly #maxQueued: number;
  readonly #concurrency: number;
  /** Message IDs in arrival order (a Set: a delivery may take one out of the middle). */
  readonly #queued = new Set<string>();
  readonly #inFlight = new Map<string, Promise<void>>();
  #writes: { row: RawRow; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #idle: (() => void)[] = [];
  #stopped = false;
  #dropped = 0;
  readonly #quietMs: number;
  #lastAdmission = Number.NEGATIVE_INFINITY;
  #waiting: NodeJS.Timeout | undefined;

  constructor(deps: PrerenderDeps) {
    this.#deps = deps;
    this.#maxQueued = deps.maxQueued ?? DEFAULT_MAX_QUEUED;
    this.#concurrency = deps.concurrency ?? Math.max(2, deps.renderer.threads * 4);
    this.#quietMs = deps.quietMs ?? DEFAULT_QUIET_MS;
  }

  /** Messages just accepted (live ones; committed). */
  enqueue(messageIds: readonly string[]): void {
    if (this.#stopped) return;
    for (const id of messageIds) {
      if (this.#queued.size >= this.#maxQueued) {
        if (this.#dropped++ === 0)
          this.#deps.log.warn(
            { queued: this.#queued.size },
            'admission rendering is behind: more messages are rendered at delivery',
          );
        continue;
      }
      this.#queued.add(id);
    }
    this.#lastAdmission = performance.now();
    this.#pump();
  }

  /**
   * Before a delivery renders `messageId`: a rendering in progress is waited for (it is stored
   * when this resolves); one not started yet is taken off the queue and left to the delivery,
   * which renders it for itself without storing it: storing pays off only for later jobs and
   * retries, and costs the event loop a write of the whole message (and the checkpoint of it)
   * when sends and deliveries run together. Never rejects.
   */
  settle(messageId: string): Promise<void> {
    if (this.#queued.delete(messageId)) this.#checkIdle();
    return this.#inFlight.get(messageId) ?? Promise.resolve();
  }

  /** Resolves when nothing is queued or in flight (benchmarks and tests wait for it). */
  idle(): Promise<void> {
    if (this.#queued.size === 0 && this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Drops the queue and waits for the renders in flight (one render each at most). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#waiting);
    this.#queued.clear();
    await Promise.all(this.#inFlight.values());
    this.#checkIdle();
  }

  /**
   * Starts renders up to the concurrency, once admission has been quiet for `quietMs`: while sends
   * keep coming, the CPU is theirs (a delivery renders what it reaches first itself, `settle`).
   */
  #pump(): void {
    if (this.#stopped || this.#queued.size === 0 || this.#inFlight.size >= this.#concurrency) return;
    const calm = performance.now() - this.#lastAdmission;
    if (calm < this.#quietMs) {
      this.#waiting ??= setTimeout(() => {
        this.#waiting = undefined;
        this.#pump();
      }, this.#quietMs - calm);
      return;
    }
    while (this.#inFlight.size < this.#concurrency && this.#queued.size > 0) {
      const id = this.#queued.values().next().value as string;
      this.#queued.delete(id);
      this.#start(id);
    }
  }

  #start(id: string): void {
    const done = this.#render(id).finally(() => {
      this.#inFlight.delete(id);
      this.#pump();
      this.#checkIdle();
    });
    this.#inFlight.set(id, done);
  }

  #checkIdle(): void {
    if (this.#queued.size === 0 && this.#inFlight.size === 0) {
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  /** Renders one message and stores it; any failure is left to the delivery, which reports it. */
  async #render(messageId: string): Promise<void> {
    const { store, keys, renderer, log } = this.#deps;
    try {
      const { message, recipients } = await store.load(messageId);
      if (message === undefined || FINAL.has(message.status) || this.#stopped) return;
      const signing = await keys.signingFor(message);
      if (signing.kind === 'domain_deleted') return;
      const fields = composeFields(message, headerRecipients(recipients));
      const rendered = await renderer.render({
        messageId,
        fields,
        dkim: signing.kind === 'sign' ? signing.dkim : null,
        signTime: Date.now(),
        tracking: await trackingInput(this.#deps.tracking, message, fields.headers),
      });
      try {
        const identity = signing.kind === 'sign' ? signingIdentity(signing.dkim) : UNSIGNED;
        await this.#write({ messageId, signing: identity, size: rendered.size, bytes: rendered.bytes });
      } finally {
        rendered.release();
      }
    } catch (error) {
      log.warn(
        { err: error, message_id: messageId },
        'admission rendering failed; delivery renders the message',
      );
    }
  }

  /** Renders finished in the same turn are stored in one transaction. */
  #write(row: RawRow): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#writes.length === 0) setImmediate(() => this.#flush());
      this.#writes.push({ row, resolve, reject });
    });
  }

  #flush(): void {
    const batch = this.#writes.splice(0);
    this.#deps.raw
      .write(
        batch.map((w) => w.row),
        Date.now(),
      )
      .then(
        () => {
          for (const w of batch) w.resolve();
        },
        (error: unknown) => {
          for (const w of batch) w.reject(error);
        },
      );
  }
}
