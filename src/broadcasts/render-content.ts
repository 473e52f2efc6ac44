/**
 * A broadcast message's bodies, written when the message is composed: the broadcast's content,
 * stored once in `broadcasts`, with the contact's values kept with the message
 * (`messages.variables`), found through the broadcast's ledger. The expansion writes no body per
 * contact (content.ts has why), so a render worker calls this for a message that has no stored
 * body (delivery/compose/render-task.ts), on the worker's own read-only connection.
 *
 * A broadcast's content is fixed once it is scheduled (only a draft can be changed, and a template
 * is copied in when sending starts), so each thread parses it once and keeps the parse.
 */
import type SQLite from 'better-sqlite3';
import type { Db } from '../platform/db/database.js';
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

/**
 * Reads and writes a broadcast message's bodies on `sqlite` (a render worker's connection);
 * undefined when the message is no broadcast's.
 */
export function broadcastBodyReader(
  sqlite: SQLite.Database,
): (messageId: string) => BroadcastBodies | undefined {
  const ledger = sqlite.prepare<[string], LedgerRow>(
    `select l.broadcast_id, m.variables from broadcast_messages l
     join messages m on m.id = l.message_id where l.message_id = ?`,
  );
  const content = sqlite.prepare<
    [string],
    { subject: string | null; html: string | null; text: string | null }
  >('select subject, html, text from broadcasts where id = ?');
  return (messageId) => {
    const row = ledger.get(messageId);
    if (row === undefined) return undefined;
    const parsed = parsedContent(row.broadcast_id, () => {
      const found = content.get(row.broadcast_id);
      return found && { subject: found.subject ?? '', html: found.html, text: found.text };
    });
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
