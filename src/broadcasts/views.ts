/** A broadcast as the API shows it (ISO times, parsed lists) and its progress. */
import type { BroadcastRow } from './store.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export interface Progress {
  readonly recipients: number | null;
  readonly sent: number;
  readonly delivered: number;
  readonly bounced: number;
  readonly complained: number;
  readonly failed: number;
  readonly unsubscribed: number;
  readonly suppressed: number;
  readonly prepared: number;
}

/**
 * Counts from the statuses of the broadcast's messages' recipients: a complaint is about a
 * delivered message, so `delivered` counts it too.
 */
export function progressOf(
  row: BroadcastRow,
  statuses: Readonly<Record<string, number>>,
  unsubscribed: number,
): Progress {
  const n = (status: string) => statuses[status] ?? 0;
  return {
    recipients: row.recipients,
    sent: row.queued,
    delivered: n('delivered') + n('complained'),
    bounced: n('bounced'),
    complained: n('complained'),
    failed: n('failed') + n('suppressed'),
    unsubscribed,
    suppressed: row.suppressed,
    prepared: row.prepared_for === row.send_at ? Number(row.prepared) : 0,
  };
}

export function broadcastView(row: BroadcastRow, progress?: Progress) {
  return {
    id: row.id,
    object: 'broadcast' as const,
    name: row.name,
    audience_id: row.audience_id,
    from: row.from_header,
    reply_to: row.reply_to === null ? [] : (JSON.parse(row.reply_to) as string[]),
    subject: row.subject,
    html: row.html,
    text: row.text,
    template: row.template,
    tags: JSON.parse(row.tags) as Record<string, string>,
    status: row.status,
    send_at: iso(row.send_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    cancelled_at: iso(row.cancelled_at),
    prepared_at: row.prepared_for === row.send_at ? iso(row.prepared_at) : null,
    error: row.last_error,
    ...(progress ? { progress } : {}),
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
  };
}
