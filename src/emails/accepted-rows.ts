/**
 * What an accepted send writes, engine-free: the `messages` row's columns, the jobs' state and
 * the domains that get a job. Both adapters of the accepted-send write use it (store.ts' prepared
 * statements on SQLite, store-accepted-pg.ts on PostgreSQL), so the rows they write cannot drift.
 */
import type { MessageStatus, Traffic } from '../platform/db/tables.js';
import { type Draft, recipientDomains, variablesOf } from './model.js';

const bool = (value: boolean | null) => (value === null ? null : value ? 1 : 0);

export interface AcceptedRows {
  readonly traffic: Traffic;
  readonly status: MessageStatus;
  /** The `messages` row but its id and timestamps. */
  readonly message: ReturnType<typeof messageColumns>;
  /** The state of its delivery jobs, and the domains that get one (none while held for approval). */
  readonly jobState: 'queued' | 'scheduled';
  readonly jobDomains: string[];
}

export function acceptedRows(draft: Draft): AcceptedRows {
  const traffic = draft.traffic ?? 'transactional';
  const held = draft.heldFor !== undefined;
  const status: MessageStatus = held ? 'awaiting_approval' : draft.sendAt === null ? 'queued' : 'scheduled';
  return {
    traffic,
    status,
    message: messageColumns(draft, traffic, status),
    jobState: draft.sendAt === null ? 'queued' : 'scheduled',
    // A held send gets its jobs when it is approved (held.ts).
    jobDomains: held ? [] : recipientDomains(draft),
  };
}

function messageColumns(draft: Draft, traffic: Traffic, status: MessageStatus) {
  return {
    project_id: draft.projectId,
    api_key_id: draft.keyId,
    mode: draft.mode,
    traffic,
    status,
    from_header: draft.from.display,
    from_email: draft.from.email,
    from_domain: draft.from.domain,
    reply_to: draft.replyTo.length ? JSON.stringify(draft.replyTo.map((m) => m.display)) : null,
    subject: draft.subject,
    headers: JSON.stringify(draft.headers),
    tags: JSON.stringify(draft.tags),
    template_id: draft.template?.id ?? null,
    template_version: draft.template?.version ?? null,
    variables: variablesOf(draft),
    send_at: draft.sendAt,
    track_opens: bool(draft.trackOpens),
    track_clicks: bool(draft.trackClicks),
  };
}
