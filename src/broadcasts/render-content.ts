/**
 * A broadcast message's bodies, written when the message is composed: the broadcast's content,
 * stored once in `broadcasts`, with the contact's values kept with the message
 * (`messages.variables`), found through the broadcast's ledger. The expansion writes no body per
 * contact (content.ts has why), so a render worker calls this for a message that has no stored
 * body (delivery/compose/render-task.ts), on the worker's own read-only connection.
 *
 * A broadcast's content is fixed once it is scheduled (only a draft can be changed, and a template
 * is copied in when sending or its preparation ahead starts), so each thread parses it once and keeps the parse.
 */
import type { Db } from '../platform/db/database.js';
import type { EngineQuery, WorkerReader } from '../platform/db/worker-reader.js';
import type { ParsedContent } from '../templates/parsed.js';
import { type BroadcastContent, personalizeBodies, prepareContent } from './content.js';

export interface BroadcastBodies {
  readonly html: string | null;
  readonly text: string | null;
}

/** Parses kept per thread; a thread renders the messages of a few broadcasts at a time. */
const KEPT = 8;
const parses = new Map<string, ParsedContent>();

/** The broadcast's content parsed, from this thread's cache or `load`; undefined when there is none. */
export function parsedContent(
  broadcastId: string,
  load: () => BroadcastContent | undefined,
): ParsedContent | undefined {
  let parsed = parses.get(broadcastId);
  if (parsed === undefined) {
    const content = load();
    if (content === undefined) return undefined;
    parsed = prepareContent(content);
    if (parses.size >= KEPT) parses.delete(parses.keys().next().value as string);
    parses.set(broadcastId, parsed);
  }
  return parsed;
}

/** The bodies of one contact's message, from the parse and the values kept with the message. */
export function writeBodies(parsed: ParsedContent, variables: string | null): BroadcastBodies {
  return personalizeBodies(
    parsed,
    variables === null ? {} : (JSON.parse(variables) as Record<string, string>),
  );
}

interface LedgerRow {
  readonly broadcast_id: string;
  readonly variables: string | null;
}

const LEDGER: EngineQuery = {
  sqlite: `select l.broadcast_id, m.variables from broadcast_messages l
           join messages m on m.id = l.message_id where l.message_id = ?`,
  postgresql: `select l.broadcast_id, m.variables from broadcast_messages l
               join messages m on m.id = l.message_id where l.message_id = $1`,
};
const CONTENT: EngineQuery = {
  sqlite: 'select subject, html, text from broadcasts where id = ?',
  postgresql: 'select subject, html, text from broadcasts where id = $1',
};

/**
 * Reads and writes a broadcast message's bodies through `reader` (a render worker's own
 * connection, platform/db/worker-reader.ts); undefined when the message is no broadcast's.
 */
export function broadcastBodyReader(
  reader: WorkerReader,
): (messageId: string) => Promise<BroadcastBodies | undefined> {
  return async (messageId) => {
    const row = await reader.first<LedgerRow>(LEDGER, [messageId]);
    if (row === undefined) return undefined;
    // The content is read only when this thread has not parsed it yet.
    const found = parses.has(row.broadcast_id)
      ? undefined
      : await reader.first<{ subject: string | null; html: string | null; text: string | null }>(CONTENT, [
          row.broadcast_id,
        ]);
    const parsed = parsedContent(
      row.broadcast_id,
      () => found && { subject: found.subject ?? '', html: found.html, text: found.text },
    );
    return parsed && writeBodies(parsed, row.variables);
  };
}

/**
 * The same bodies read through Kysely (either engine), for a reader of the history (the
 * dashboard's message detail): undefined when the message is no broadcast's.
 */
export async function broadcastBodiesOf(db: Db, messageId: string): Promise<BroadcastBodies | undefined> {
  const row = await db
    .selectFrom('broadcast_messages as l')
    .innerJoin('messages as m', 'm.id', 'l.message_id')
    .innerJoin('broadcasts as b', 'b.id', 'l.broadcast_id')
    .select(['l.broadcast_id', 'm.variables', 'b.subject', 'b.html', 'b.text'])
    .where('l.message_id', '=', messageId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const parsed = parsedContent(row.broadcast_id, () => ({
    subject: row.subject ?? '',
    html: row.html,
    text: row.text,
  }));
  return parsed && writeBodies(parsed, row.variables);
}
