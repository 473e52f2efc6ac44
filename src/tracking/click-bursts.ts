/**
 * The memory of the "every link at once" scanner rule (classify/rules.ts, `all_links_at_once`): the
 * clicks the recorder (recorder.ts) just wrote of messages with two or more tracked links, kept
 * for the clicks still held to be judged against, and the judgement itself. A message of one link
 * is never "all links at once", so its clicks are not kept.
 */
import type { PendingHit } from './hit-events.js';

/** Clicks of one message this close together are "at once". */
export const SAME_SECOND_MS = 1000;

export class ClickBursts {
  readonly #holdMs: number;
  /** Clicks written in the last moments, per message. */
  readonly #recent = new Map<string, ClickMark[]>();
  #prunedAt = 0;

  /** `holdMs`: how long the recorder holds a click before it is judged. */
  constructor(holdMs: number) {
    this.#holdMs = holdMs;
  }

  /**
   * Whether every tracked link of the click's message was followed within one second, this
   * click among them: the clicks around it are held (or were just written), since each waits
   * `holdMs` before it is judged. HEAD requests are left out: they are machines already, and a
   * link checker's HEAD beside a person's click must not make the person a scanner.
   */
  allLinksAtOnce(hit: PendingHit, clicks: ReadonlyMap<string, readonly ClickMark[]>): boolean {
    const count = hit.count ?? 0;
    if (count < 2) return false;
    const near = [...(this.#recent.get(hit.messageId) ?? []), ...(clicks.get(hit.messageId) ?? [])].filter(
      (other) => Math.abs(other.at - hit.at) <= SAME_SECOND_MS,
    );
    for (const start of near) {
      if (start.at > hit.at) continue;
      const inSpan = new Set(
        near
          .filter((other) => other.at >= start.at && other.at <= start.at + SAME_SECOND_MS)
          .map((o) => o.index),
      );
      if (hit.at <= start.at + SAME_SECOND_MS && inSpan.size >= count) return true;
    }
    return false;
  }

  /**
   * Keeps the clicks just written of messages with two or more links for `holdMs` + one second,
   * and forgets older ones (twice a second: an older mark is more than a second from any click
   * still held, so it never changes a verdict).
   */
  remember(ready: readonly PendingHit[], now: number): void {
    for (const hit of ready) {
      if (hit.kind !== 'click' || hit.method === 'HEAD' || (hit.count ?? 0) < 2) continue;
      let list = this.#recent.get(hit.messageId);
      if (!list) {
        list = [];
        this.#recent.set(hit.messageId, list);
      }
      list.push({ index: hit.index ?? -1, at: hit.at });
    }
    if (this.#recent.size === 0 || now - this.#prunedAt < SAME_SECOND_MS / 2) return;
    this.#prunedAt = now;
    const horizon = now - this.#holdMs - 2 * SAME_SECOND_MS;
    for (const [id, list] of this.#recent) {
      if (list.every((entry) => entry.at >= horizon)) continue;
      const fresh = list.filter((entry) => entry.at >= horizon);
      if (fresh.length === 0) this.#recent.delete(id);
      else this.#recent.set(id, fresh);
    }
  }
}

/** A click as the rule sees it: which link, and when. */
export interface ClickMark {
  readonly index: number;
  readonly at: number;
}

/**
 * The clicks of this slice and of those still held (HEAD requests left out), per message: built
 * once a slice, since the held clicks are a second's worth (thousands under load) and looking
 * through all of them for each click of the slice cost milliseconds of the event loop.
 */
export function clicksByMessage(
  ready: readonly PendingHit[],
  held: readonly PendingHit[],
): ReadonlyMap<string, readonly ClickMark[]> {
  const byMessage = new Map<string, ClickMark[]>();
  if (!ready.some((hit) => hit.kind === 'click' && (hit.count ?? 0) >= 2)) return byMessage;
  for (const list of [ready, held])
    for (const other of list) {
      if (other.kind !== 'click' || other.method === 'HEAD') continue;
      const marks = byMessage.get(other.messageId);
      const mark = { index: other.index ?? -1, at: other.at };
      if (marks) marks.push(mark);
      else byMessage.set(other.messageId, [mark]);
    }
  return byMessage;
}
