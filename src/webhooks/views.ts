/** Turns webhook rows into the JSON the API returns (times as ISO 8601 at the edge). */
import type { AttemptRecord, EndpointRecord } from './schemas.js';
import type { AttemptWithMessage, EndpointRow } from './store.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function endpointView(row: EndpointRow): EndpointRecord {
  return {
    id: row.id,
    mode: row.mode,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    status: row.status,
    disabled_reason: row.disabled_reason as EndpointRecord['disabled_reason'],
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export function attemptView(row: AttemptWithMessage): AttemptRecord {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    webhook_id: row.message_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempt,
    trigger: row.trigger,
    replay_of: row.replay_of,
    previous_attempt_id: row.previous_attempt_id,
    status: row.state,
    scheduled_at: new Date(row.due_at).toISOString(),
    url: row.url,
    requested_at: iso(row.requested_at),
    duration_ms: row.duration_ms,
    response_status: row.response_status,
    response_headers: row.response_headers
      ? (JSON.parse(row.response_headers) as Record<string, string>)
      : {},
    response_body: row.response_body,
    error: row.error,
    created_at: new Date(row.created_at).toISOString(),
  };
}
