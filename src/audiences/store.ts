/**
 * The only place that queries `audiences`, `contacts` and `contact_consents`. Writes that belong
 * together (a contact and its consent entry) take the caller's transaction as `executor`.
 */
import type { Db } from '../platform/db/database.js';
import type {
  AudiencesTable,
  ContactConsentsTable,
  ContactStatus,
  ContactsTable,
} from '../platform/db/tables.js';

export type AudienceRow = AudiencesTable;
export type ContactRow = ContactsTable;
export type ConsentRow = Omit<ContactConsentsTable, 'id'> & { id: number };
export type NewConsent = Omit<ContactConsentsTable, 'id'>;

/** A contact as a broadcast's expansion reads it. */
export type Recipient = Pick<
  ContactRow,
  'id' | 'email' | 'first_name' | 'last_name' | 'metadata' | 'updated_at'
>;

export function createAudienceStore(db: Db) {
  return {
    async insertAudience(row: AudienceRow): Promise<void> {
      await db.insertInto('audiences').values(row).execute();
    },

    async audience(projectId: string, id: string, executor: Db = db): Promise<AudienceRow | undefined> {
      return executor
        .selectFrom('audiences')
        .selectAll()
        .where('id', '=', id)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
    },

    /** Newest first; one extra row for has_more. */
    async audiences(projectId: string, limit: number, after: string | undefined): Promise<AudienceRow[]> {
      let query = db.selectFrom('audiences').selectAll().where('project_id', '=', projectId);
      if (after) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    },

    async updateAudience(
      projectId: string,
      id: string,
      changes: Partial<Pick<AudienceRow, 'name' | 'description'>>,
      now: number,
    ): Promise<boolean> {
      const result = await db
        .updateTable('audiences')
        .set({ ...changes, updated_at: now })
        .where('id', '=', id)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Deletes the audience; its contacts and their history go with it (foreign keys cascade). */
    async deleteAudience(projectId: string, id: string, executor: Db = db): Promise<boolean> {
      await executor
        .deleteFrom('contact_consents')
        .where('contact_id', 'in', (q) =>
          q.selectFrom('contacts as c').select('c.id').where('c.audience_id', '=', id),
        )
        .execute();
      await executor.deleteFrom('contacts').where('audience_id', '=', id).execute();
      const result = await executor
        .deleteFrom('audiences')
        .where('id', '=', id)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Contacts per status in an audience. */
    async counts(audienceId: string): Promise<Record<ContactStatus, number>> {
      const rows = await db
        .selectFrom('contacts')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('audience_id', '=', audienceId)
        .groupBy('status')
        .execute();
      const out: Record<ContactStatus, number> = { subscribed: 0, unsubscribed: 0 };
      for (const row of rows) out[row.status] = Number(row.n);
      return out;
    },

    async contactById(audienceId: string, id: string, executor: Db = db): Promise<ContactRow | undefined> {
      return executor
        .selectFrom('contacts')
        .selectAll()
        .where('id', '=', id)
        .where('audience_id', '=', audienceId)
        .executeTakeFirst();
    },

    async contactByEmail(
      audienceId: string,
      email: string,
      executor: Db = db,
    ): Promise<ContactRow | undefined> {
      return executor
        .selectFrom('contacts')
        .selectAll()
        .where('audience_id', '=', audienceId)
        .where('email', '=', email)
        .executeTakeFirst();
    },

    /** The contacts of `emails` in the audience (an import batch), by address. */
    async contactsByEmail(
      audienceId: string,
      emails: readonly string[],
      executor: Db,
    ): Promise<ContactRow[]> {
      if (emails.length === 0) return [];
      return executor
        .selectFrom('contacts')
        .selectAll()
        .where('audience_id', '=', audienceId)
        .where('email', 'in', emails)
        .execute();
    },

    /** Any contact of any audience, by ID (an unsubscribe link names one). */
    async contact(id: string, executor: Db = db): Promise<ContactRow | undefined> {
      return executor.selectFrom('contacts').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Oldest first (ID order), optionally of one status; one extra row for has_more. */
    async contacts(
      audienceId: string,
      status: ContactStatus | undefined,
      limit: number,
      after: string | undefined,
    ): Promise<ContactRow[]> {
      let query = db.selectFrom('contacts').selectAll().where('audience_id', '=', audienceId);
      if (status) query = query.where('status', '=', status);
      if (after) query = query.where('id', '>', after);
      return query.orderBy('id').limit(limit).execute();
    },

    async insertContact(executor: Db, row: ContactRow): Promise<void> {
      await executor.insertInto('contacts').values(row).execute();
    },

    async updateContact(
      executor: Db,
      id: string,
      changes: Partial<Omit<ContactRow, 'id' | 'audience_id' | 'project_id' | 'email' | 'created_at'>>,
    ): Promise<void> {
      await executor.updateTable('contacts').set(changes).where('id', '=', id).execute();
    },

    async deleteContact(audienceId: string, id: string, executor: Db = db): Promise<boolean> {
      await executor.deleteFrom('contact_consents').where('contact_id', '=', id).execute();
      const result = await executor
        .deleteFrom('contacts')
        .where('id', '=', id)
        .where('audience_id', '=', audienceId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async appendConsent(executor: Db, entry: NewConsent | readonly NewConsent[]): Promise<void> {
      const rows = Array.isArray(entry) ? entry : [entry as NewConsent];
      if (rows.length === 0) return;
      await executor.insertInto('contact_consents').values(rows).execute();
    },

    async history(contactId: string): Promise<ConsentRow[]> {
      return db
        .selectFrom('contact_consents')
        .selectAll()
        .where('contact_id', '=', contactId)
        .orderBy('id')
        .execute();
    },

    /** Unsubscriptions through a broadcast's links and address. */
    async unsubscribedBy(broadcastId: string): Promise<number> {
      const row = await db
        .selectFrom('contact_consents')
        .select((eb) => eb.fn.count<number>('contact_id').distinct().as('n'))
        .where('broadcast_id', '=', broadcastId)
        .where('kind', '=', 'unsubscribed')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /**
     * The next subscribed contacts with recorded consent after `cursor` (ID order): one range of
     * contacts_audience_status, whatever the audience's size.
     */
    async subscribedAfter(audienceId: string, cursor: string | null, limit: number): Promise<Recipient[]> {
      let query = db
        .selectFrom('contacts')
        .select(['id', 'email', 'first_name', 'last_name', 'metadata', 'updated_at'])
        .where('audience_id', '=', audienceId)
        .where('status', '=', 'subscribed')
        .where('consent_at', 'is not', null);
      if (cursor !== null) query = query.where('id', '>', cursor);
      return query.orderBy('id').limit(limit).execute();
    },

    async subscribedCount(audienceId: string): Promise<number> {
      const row = await db
        .selectFrom('contacts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('audience_id', '=', audienceId)
        .where('status', '=', 'subscribed')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type AudienceStore = ReturnType<typeof createAudienceStore>;
