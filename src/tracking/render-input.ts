/**
 * What composition hands the tracking step for one message, and the step itself as the render
 * worker calls it: the message's tracking decision with the token key, and the URLs of its
 * List-Unsubscribe header (RFC 2369 §3.2: `<URL>` items, comma-separated), whose links the step
 * leaves untouched. Plain data, so it crosses to a worker thread as a structured clone.
 */
import { type TrackingDecision, trackHtml } from './rewrite.js';

export interface RenderTracking {
  readonly messageId: string;
  readonly decision: TrackingDecision;
  readonly unsubscribeUrls: readonly string[];
}

/** @example unsubscribeUrls({ 'List-Unsubscribe': '<mailto:u@x.test>, <https://x.test/u/1>' }) // ['mailto:u@x.test', 'https://x.test/u/1'] */
export function unsubscribeUrls(headers: Readonly<Record<string, string>>): string[] {
  const value = Object.entries(headers).find(([name]) => name.toLowerCase() === 'list-unsubscribe')?.[1];
  if (!value) return [];
  return [...value.matchAll(/<([^<>]+)>/g)].map((match) => (match[1] as string).trim());
}

/** The message's HTML body after the tracking step (bytes as the worker reads them, or a string). */
export function trackedHtml(html: string | Uint8Array, input: RenderTracking): string {
  const text =
    typeof html === 'string'
      ? html
      : Buffer.from(html.buffer, html.byteOffset, html.byteLength).toString('utf8');
  return trackHtml(text, input.messageId, input.decision, input.unsubscribeUrls);
}
