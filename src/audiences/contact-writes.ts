/**
 * How a contact is written, one rule set for the API and the import:
 *
 * - a new address becomes a subscribed contact with the consent given (`contact.created`);
 * - a subscribed contact takes the names and metadata given and the new consent, which the
 *   history keeps beside the earlier one (`contact.updated`);
 * - an unsubscribed contact is subscribed again only by an explicit `POST .../contacts` (the
 *   spec's "adds or resubscribes"), never by an import: re-importing an old list must not undo
 *   anyone's unsubscription (the import refuses the row and says why).
 *
 * Each write appends its consent entry and its event in the caller's transaction.
 */
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import { newId } from '../platform/ids.js';
import type { ContactRequest } from './schemas.js';
import type { AudienceStore, ContactRow, NewConsent } from './store.js';
import { contactEventData } from './views.js';

export type WriteOutcome =
  | { readonly kind: 'created' | 'updated' | 'resubscribed'; readonly row: ContactRow }
  | { readonly kind: 'refused'; readonly reason: string };

export interface WriteContext {
  readonly store: AudienceStore;
  readonly events: EventService;
  readonly projectId: string;
  readonly audienceId: string;
  /** 'api' may resubscribe; 'import' may not. */
  readonly via: 'api' | 'import';
  readonly now: number;
}

/** The row of a new contact and its first consent entry (nothing written). */
export function newContact(
  ctx: WriteContext,
  request: ContactRequest,
): { row: ContactRow; consent: NewConsent } {
  const row: ContactRow = {
    id: newId('con', ctx.now),
    audience_id: ctx.audienceId,
    project_id: ctx.projectId,
    email: request.email,
    first_name: request.first_name ?? null,
    last_name: request.last_name ?? null,
    metadata: JSON.stringify(request.metadata ?? {}),
    status: 'subscribed',
    consent_source: request.consent_source,
    consent_at: request.consent_at,
    unsubscribed_at: null,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  const consent: NewConsent = {
    contact_id: row.id,
    kind: 'subscribed',
    source: request.consent_source,
    at: request.consent_at,
    broadcast_id: null,
    detail: ctx.via === 'import' ? JSON.stringify({ via: 'import' }) : null,
    recorded_at: ctx.now,
  };
  return { row, consent };
}

/**
 * New contacts of an import batch in three statements (contacts, consents, events), not three per
 * contact: a 100,000-row import is mostly new addresses. Run inside the batch's transaction.
 */
export async function insertNewContacts(
  trx: Db,
  ctx: WriteContext,
  created: readonly { row: ContactRow; consent: NewConsent }[],
): Promise<void> {
  if (created.length === 0) return;
  // SQLite takes at most 32,766 bound values a statement: 13 a contact, 7 a consent.
  for (let start = 0; start < created.length; start += 1000) {
    const chunk = created.slice(start, start + 1000);
    await trx
      .insertInto('contacts')
      .values(chunk.map((c) => c.row))
      .execute();
    await ctx.store.appendConsent(
      trx,
      chunk.map((c) => c.consent),
    );
  }
  const events = created.map(({ row }) => ({
    projectId: ctx.projectId,
    type: 'contact.created' as const,
    at: ctx.now,
    data: contactEventData(row),
  }));
  await ctx.events.appendBatchWithin(trx, events);
}

export async function writeContact(
  trx: Db,
  ctx: WriteContext,
  request: ContactRequest,
  existing: ContactRow | undefined,
): Promise<WriteOutcome> {
  const { store, now } = ctx;
  const consent = {
    kind: 'subscribed' as const,
    source: request.consent_source,
    at: request.consent_at,
    broadcast_id: null,
    detail: ctx.via === 'import' ? JSON.stringify({ via: 'import' }) : null,
    recorded_at: now,
  };
  if (existing === undefined) {
    const row: ContactRow = {
      id: newId('con', now),
      audience_id: ctx.audienceId,
      project_id: ctx.projectId,
      email: request.email,
      first_name: request.first_name ?? null,
      last_name: request.last_name ?? null,
      metadata: JSON.stringify(request.metadata ?? {}),
      status: 'subscribed',
      consent_source: request.consent_source,
      consent_at: request.consent_at,
      unsubscribed_at: null,
      created_at: now,
      updated_at: now,
    };
    await store.insertContact(trx, row);
    await store.appendConsent(trx, { ...consent, contact_id: row.id });
    await appendEvent(trx, ctx, 'contact.created', row);
    return { kind: 'created', row };
  }
  if (existing.status === 'unsubscribed' && ctx.via === 'import') {
    const when =
      existing.unsubscribed_at === null ? '' : ` on ${new Date(existing.unsubscribed_at).toISOString()}`;
    return {
      kind: 'refused',
      reason: `the contact unsubscribed${when}; an import never subscribes them again (POST /v1/audiences/{id}/contacts with their new consent does)`,
    };
  }
  const row: ContactRow = {
    ...existing,
    first_name: request.first_name ?? existing.first_name,
    last_name: request.last_name ?? existing.last_name,
    metadata: request.metadata ? JSON.stringify(request.metadata) : existing.metadata,
    status: 'subscribed',
    consent_source: request.consent_source,
    consent_at: request.consent_at,
    unsubscribed_at: null,
    updated_at: now,
  };
  const { id, audience_id, project_id, email, created_at, ...changes } = row;
  await store.updateContact(trx, id, changes);
  await store.appendConsent(trx, { ...consent, contact_id: id });
  await appendEvent(trx, ctx, 'contact.updated', row);
  return { kind: existing.status === 'unsubscribed' ? 'resubscribed' : 'updated', row };
}

export async function appendEvent(
  trx: Db,
  ctx: { readonly events: EventService; readonly projectId: string; readonly now: number },
  type: 'contact.created' | 'contact.updated' | 'contact.unsubscribed',
  row: ContactRow,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await ctx.events.append(trx, {
    projectId: ctx.projectId,
    type,
    at: ctx.now,
    data: { ...contactEventData(row), ...extra },
  });
}
