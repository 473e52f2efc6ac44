/**
 * What a render worker reads on its own read-only connection (platform/db/worker-reader.ts): a
 * message's stored rendering and its bodies. Kept apart from the stores that write them
 * (raw-store.ts, queue/store.ts) so that a render thread does not load Kysely and both engines'
 * delivery stores to get two strings: each such module is heap that every render thread keeps
 * for the life of the process (BENCHMARKS.md, "Broadcast").
 */
import type { EngineQuery } from '../../platform/db/worker-reader.js';

export interface RawMessage {
  readonly signing: string;
  /** Octets before dot-stuffing. */
  readonly size: number;
  /** Dot-stuffed, ready for DATA. */
  readonly bytes: Buffer;
}

/** The stored rendering of a message. */
export const RAW_QUERY: EngineQuery = {
  sqlite: 'select signing, size, bytes from message_raw where message_id = ?',
  postgresql: 'select signing, size, bytes from message_raw where message_id = $1',
};

/** A broadcast message's rendering prepared before its send time (broadcasts/preparation.ts). */
export const PREPARED_QUERY: EngineQuery = {
  sqlite: 'select signing, size, bytes from broadcast_renderings where message_id = ?',
  postgresql: 'select signing, size, bytes from broadcast_renderings where message_id = $1',
};

/**
 * A message's bodies, which only the render workers read, as UTF-8 bytes: read as bytes, a large
 * body is never decoded into a string and encoded back.
 */
export interface MessageContent {
  readonly html: Buffer | null;
  readonly text: Buffer | null;
}

/** The bodies of a message. */
export const CONTENT_QUERY: EngineQuery = {
  sqlite:
    'select cast(html as blob) as html, cast(text as blob) as text from message_bodies where message_id = ?',
  postgresql: `select convert_to(html, 'UTF8') as html, convert_to(text, 'UTF8') as text
                 from message_bodies where message_id = $1`,
};
