/** Rows as the API shows them (ISO times, parsed metadata) and as `contact.*` events carry them. */
import type { AudienceRow, ConsentRow, ContactRow } from './store.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function audienceView(row: AudienceRow, contacts?: { subscribed: number; unsubscribed: number }) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    ...(contacts ? { contacts } : {}),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function contactView(row: ContactRow, history?: readonly ConsentRow[]) {
  return {
    id: row.id,
    audience_id: row.audience_id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    status: row.status,
    consent_source: row.consent_source,
    consent_at: iso(row.consent_at),
    unsubscribed_at: row.unsubscribed_at === null ? null : iso(row.unsubscribed_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    ...(history
      ? {
          history: history.map((entry) => ({
            kind: entry.kind,
            source: entry.source,
            at: iso(entry.at),
            broadcast_id: entry.broadcast_id,
            recorded_at: iso(entry.recorded_at),
          })),
        }
      : {}),
  };
}

/** The `data` of a `contact.created`, `contact.updated` or `contact.unsubscribed` event (as Resend's). */
export function contactEventData(row: ContactRow): Record<string, unknown> {
  return {
    id: row.id,
    audience_id: row.audience_id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    unsubscribed: row.status === 'unsubscribed',
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
