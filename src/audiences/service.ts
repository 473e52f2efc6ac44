/**
 * Audiences and their contacts: the rules. Every contact carries the consent it was added with
 * and an append-only history of subscriptions and unsubscriptions (contact-writes.ts); every
 * change commits with its `contact.*` event. Broadcasts read subscribed contacts through
 * `subscribedAfter`, and unsubscribe them through `unsubscribe`; nothing else writes a contact.
 */
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';
import { AppError, conflict, notFound } from '../platform/http/errors.js';
import { newId } from '../platform/ids.js';
import { normalizeEmail } from '../platform/normalize-email.js';
import type { Readable } from 'node:stream';
import { appendEvent, writeContact } from './contact-writes.js';
import { type ImportFormat, type ImportReport, importContacts } from './import.js';
import type { ContactRequest, ContactUpdate } from './schemas.js';
import type { AudienceRow, AudienceStore, ContactRow } from './store.js';
import { audienceView, contactView } from './views.js';

export interface Page {
  readonly limit: number;
  readonly after?: string | undefined;
}

/** How a contact left or came back outside the API (an unsubscribe link, the mailto address). */
export interface ConsentChange {
  readonly source: string;
  readonly broadcastId?: string | null;
  readonly detail?: Record<string, string> | null;
}

export interface AudienceDeps {
  readonly db: Db;
  readonly store: AudienceStore;
  readonly events: EventService;
}

export function createAudienceService(deps: AudienceDeps) {
  const { db, store, events } = deps;
  /** Whether a broadcast still to send reads the audience (the broadcasts capability answers). */
  let inUse: (projectId: string, audienceId: string) => Promise<boolean> = async () => false;

  async function audienceOf(projectId: string, id: string): Promise<AudienceRow> {
    const row = await store.audience(projectId, id);
    if (!row) throw notFound(`Audience ${id}`);
    return row;
  }

  async function contactOf(projectId: string, audienceId: string, ref: string): Promise<ContactRow> {
    await audienceOf(projectId, audienceId);
    const byEmail = ref.includes('@') ? normalizeEmail(ref) : undefined;
    const row = byEmail
      ? await store.contactByEmail(audienceId, byEmail)
      : await store.contactById(audienceId, ref);
    if (!row) throw notFound(`Contact ${ref} of audience ${audienceId}`);
    return row;
  }

  /** Runs `work` in a transaction and tells event readers once it committed. */
  async function committed<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    const result = await db.transaction().execute(work);
    events.notify();
    return result;
  }

  return {
    store,

    setInUseCheck(check: (projectId: string, audienceId: string) => Promise<boolean>): void {
      inUse = check;
    },

    async create(projectId: string, request: { name: string; description?: string | undefined }) {
      const now = Date.now();
      const row: AudienceRow = {
        id: newId('aud', now),
        project_id: projectId,
        name: request.name,
        description: request.description ?? null,
        created_at: now,
        updated_at: now,
      };
      await store.insertAudience(row);
      return audienceView(row, { subscribed: 0, unsubscribed: 0 });
    },

    async list(projectId: string, page: Page) {
      const rows = await store.audiences(projectId, page.limit + 1, page.after);
      return {
        data: rows.slice(0, page.limit).map((row) => audienceView(row)),
        has_more: rows.length > page.limit,
      };
    },

    async get(projectId: string, id: string) {
      const row = await audienceOf(projectId, id);
      return audienceView(row, await store.counts(id));
    },

    /** The audience, or a 404 (broadcasts check the audience they are given). */
    async exists(projectId: string, id: string): Promise<boolean> {
      return (await store.audience(projectId, id)) !== undefined;
    },

    async update(
      projectId: string,
      id: string,
      changes: { name?: string | undefined; description?: string | null | undefined },
    ) {
      const set: Partial<Pick<AudienceRow, 'name' | 'description'>> = {};
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.description !== undefined) set.description = changes.description;
      if (!(await store.updateAudience(projectId, id, set, Date.now()))) throw notFound(`Audience ${id}`);
      return this.get(projectId, id);
    },

    /** Deletes the audience with its contacts and their history; refused while a broadcast still sends to it. */
    async remove(projectId: string, id: string): Promise<void> {
      await audienceOf(projectId, id);
      if (await inUse(projectId, id)) {
        throw conflict(
          `Audience ${id} has a broadcast scheduled or sending; cancel it (POST /v1/broadcasts/{id}/cancel) before deleting the audience.`,
        );
      }
      await db.transaction().execute((trx) => store.deleteAudience(projectId, id, trx));
    },

    /** Adds a contact, or subscribes one again with the new consent (spec §4.4: 201 either way). */
    async addContact(projectId: string, audienceId: string, request: ContactRequest) {
      await audienceOf(projectId, audienceId);
      const ctx = { store, events, projectId, audienceId, via: 'api' as const, now: Date.now() };
      const write = () =>
        committed(async (trx) =>
          writeContact(trx, ctx, request, await store.contactByEmail(audienceId, request.email, trx)),
        );
      let outcome: Awaited<ReturnType<typeof write>>;
      try {
        outcome = await write();
      } catch (error) {
        // Two adds of one new address at once: the second finds the first's contact.
        if (!isUniqueViolation(error)) throw error;
        outcome = await write();
      }
      if (outcome.kind === 'refused') throw new AppError('internal', outcome.reason);
      return { contact: contactView(outcome.row), outcome: outcome.kind };
    },

    async getContact(projectId: string, audienceId: string, ref: string) {
      const row = await contactOf(projectId, audienceId, ref);
      return contactView(row, await store.history(row.id));
    },

    async updateContact(projectId: string, audienceId: string, ref: string, changes: ContactUpdate) {
      const row = await contactOf(projectId, audienceId, ref);
      const now = Date.now();
      const next: ContactRow = {
        ...row,
        first_name: changes.first_name === undefined ? row.first_name : changes.first_name,
        last_name: changes.last_name === undefined ? row.last_name : changes.last_name,
        metadata: changes.metadata === undefined ? row.metadata : JSON.stringify(changes.metadata),
        updated_at: now,
      };
      await committed(async (trx) => {
        await store.updateContact(trx, row.id, {
          first_name: next.first_name,
          last_name: next.last_name,
          metadata: next.metadata,
          updated_at: now,
        });
        await appendEvent(trx, { events, projectId, now }, 'contact.updated', next);
      });
      return contactView(next, await store.history(row.id));
    },

    /** Removes the contact and its history (erasure: nothing of the person is kept). */
    async removeContact(projectId: string, audienceId: string, ref: string): Promise<void> {
      const row = await contactOf(projectId, audienceId, ref);
      await db.transaction().execute((trx) => store.deleteContact(audienceId, row.id, trx));
    },

    async listContacts(
      projectId: string,
      audienceId: string,
      query: Page & { status?: 'subscribed' | 'unsubscribed' | undefined },
    ) {
      await audienceOf(projectId, audienceId);
      const rows = await store.contacts(audienceId, query.status, query.limit + 1, query.after);
      return {
        data: rows.slice(0, query.limit).map((row) => contactView(row)),
        has_more: rows.length > query.limit,
      };
    },

    /**
     * Unsubscribes a contact (a link, the one-click POST, the mailto address): one history entry
     * and `contact.unsubscribed`, once; a contact already unsubscribed, or gone, is left as it is.
     * Returns the contact as it is afterwards, or undefined when it no longer exists.
     */
    async unsubscribe(contactId: string, change: ConsentChange): Promise<ContactRow | undefined> {
      const now = Date.now();
      return committed(async (trx) => {
        const row = await store.contact(contactId, trx);
        if (!row || row.status === 'unsubscribed') return row;
        const next: ContactRow = { ...row, status: 'unsubscribed', unsubscribed_at: now, updated_at: now };
        await store.updateContact(trx, row.id, {
          status: 'unsubscribed',
          unsubscribed_at: now,
          updated_at: now,
        });
        await store.appendConsent(trx, {
          contact_id: row.id,
          kind: 'unsubscribed',
          source: change.source,
          at: now,
          broadcast_id: change.broadcastId ?? null,
          detail: change.detail ? JSON.stringify(change.detail) : null,
          recorded_at: now,
        });
        const extra = change.broadcastId ? { broadcast_id: change.broadcastId } : {};
        await appendEvent(
          trx,
          { events, projectId: row.project_id, now },
          'contact.unsubscribed',
          next,
          extra,
        );
        return next;
      });
    },

    /**
     * Subscribes again a contact who unsubscribed, on their own request (the confirmation page's
     * button): the consent is that request, at this time.
     */
    async resubscribe(contactId: string, change: ConsentChange): Promise<ContactRow | undefined> {
      const now = Date.now();
      return committed(async (trx) => {
        const row = await store.contact(contactId, trx);
        if (!row || row.status === 'subscribed') return row;
        const next: ContactRow = {
          ...row,
          status: 'subscribed',
          consent_source: change.source,
          consent_at: now,
          unsubscribed_at: null,
          updated_at: now,
        };
        await store.updateContact(trx, row.id, {
          status: 'subscribed',
          consent_source: change.source,
          consent_at: now,
          unsubscribed_at: null,
          updated_at: now,
        });
        await store.appendConsent(trx, {
          contact_id: row.id,
          kind: 'subscribed',
          source: change.source,
          at: now,
          broadcast_id: change.broadcastId ?? null,
          detail: change.detail ? JSON.stringify(change.detail) : null,
          recorded_at: now,
        });
        await appendEvent(trx, { events, projectId: row.project_id, now }, 'contact.updated', next);
        return next;
      });
    },

    /** Streams an upload of contacts into the audience (import.ts); the audience must exist. */
    async importContacts(
      projectId: string,
      audienceId: string,
      input: Readable,
      format: ImportFormat,
    ): Promise<ImportReport> {
      await audienceOf(projectId, audienceId);
      return importContacts({ db, store, events }, { projectId, audienceId }, input, format);
    },

    /** Any contact by ID (an unsubscribe link names one). */
    contact: (id: string) => store.contact(id),
    subscribedAfter: store.subscribedAfter,
    subscribedCount: store.subscribedCount,
    unsubscribedBy: store.unsubscribedBy,
    audienceRow: (projectId: string, id: string) => store.audience(projectId, id),
  };
}

export type AudienceService = ReturnType<typeof createAudienceService>;
