/**
 * An operator's explicit retry of a message stored without processing (`processor-poison.ts`):
 * the whole message (its `original.eml`) is parsed and authenticated as the processor would, and
 * the stored message is replaced in place, same ID and thread: its parsed fields, its attachments
 * (stored `pending`, for the scanner of the running server), `processing_error` cleared, and
 * `email.received` again with `processing: "complete"`. It runs in the process that asks for it
 * (`posthorn inbound retry`), never in the server's: if the message does crash what processes it,
 * it crashes the command, not the server.
 */
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import { conflict, notFound } from '../platform/http/errors.js';
import type { Analyzer } from './analysis/analyzer.js';
import { readInbound } from './analysis/received-fallback.js';
import type { InboundStore } from './store.js';
import { attachmentRows, parsedColumns, receivedEventData } from './threads/received.js';

export interface Retried {
  readonly id: string;
  readonly subject: string;
  readonly attachments: number;
}

export async function retryProcessing(
  deps: {
    readonly db: Db;
    readonly store: InboundStore;
    readonly events: EventService;
    readonly analyzer: Analyzer;
  },
  id: string,
): Promise<Retried> {
  const found = await deps.store.unprocessed(id);
  if (found === undefined) throw notFound(`A received message ${id} stored without processing`);
  const { row, original } = found;
  const facts = { ip: row.remote_ip, helo: row.helo, mailFrom: row.mail_from };
  const analyzed = await deps.analyzer.analyze(original, facts, { mail: true, reports: false });
  const mail = analyzed.mail ?? (await readInbound(original));
  const at = row.created_at;
  const attachments = attachmentRows(mail, { projectId: row.project_id, messageId: id, at }, 'pending');
  const replaced = await deps.db.transaction().execute(async (trx) => {
    if (!(await deps.store.replaceUnprocessed(trx, id, parsedColumns(mail, analyzed.auth), attachments)))
      return false;
    await deps.events.appendWithin(trx, {
      projectId: row.project_id,
      type: 'email.received',
      data: receivedEventData({
        id,
        threadId: row.thread_id,
        routeId: row.route_id,
        mail,
        at,
        attachments,
        processing: { state: 'complete' },
      }),
    });
    return true;
  });
  if (!replaced) throw conflict(`Received message ${id} was processed meanwhile.`);
  // Wakes the webhooks of the nodes that listen (PostgreSQL); else they find the event at their next poll.
  deps.events.notify();
  return { id, subject: mail.subject, attachments: attachments.length };
}
