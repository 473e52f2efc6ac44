/** The only file that queries `domains` and `domain_dkim_keys`. */
import type { Db } from '../platform/db/database.js';
import type { DomainDkimKeysTable, DomainStatus, DomainsTable } from '../platform/db/tables.js';
import type { PublicDkimKey } from './records.js';

export type DomainRow = DomainsTable;
export type DkimKeyRow = DomainDkimKeysTable;

export function createDomainStore(db: Db) {
  return {
    transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
      return db.transaction().execute(work);
    },

    async insert(executor: Db, row: DomainRow, keys: readonly DkimKeyRow[]): Promise<void> {
      await executor.insertInto('domains').values(row).execute();
      await executor
        .insertInto('domain_dkim_keys')
        .values([...keys])
        .execute();
    },

    async find(projectId: string, id: string, executor: Db = db): Promise<DomainRow | undefined> {
      return executor
        .selectFrom('domains')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Any one sealed private key: the boot checks that the master key opens it. */
    async anySealedKey(): Promise<Pick<DkimKeyRow, 'domain_id' | 'private_key_sealed'> | undefined> {
      return db
        .selectFrom('domain_dkim_keys')
        .select(['domain_id', 'private_key_sealed'])
        .limit(1)
        .executeTakeFirst();
    },

    async findById(id: string): Promise<DomainRow | undefined> {
      return db.selectFrom('domains').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async findByName(projectId: string, name: string): Promise<DomainRow | undefined> {
      return db
        .selectFrom('domains')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('name', '=', name)
        .executeTakeFirst();
    },

    /** Public halves only; the sealed private key stays in the table. */
    async publicKeys(domainIds: readonly string[]): Promise<Omit<DkimKeyRow, 'private_key_sealed'>[]> {
      if (domainIds.length === 0) return [];
      return db
        .selectFrom('domain_dkim_keys')
        .select(['domain_id', 'algorithm', 'selector', 'public_key', 'created_at'])
        .where('domain_id', 'in', domainIds)
        .orderBy('algorithm', 'desc')
        .execute();
    },

    /** The public keys of each domain, as the DNS records need them. */
    async publicKeysByDomain(domainIds: readonly string[]): Promise<Map<string, PublicDkimKey[]>> {
      const byDomain = new Map<string, PublicDkimKey[]>();
      for (const key of await this.publicKeys(domainIds)) {
        const list = byDomain.get(key.domain_id) ?? [];
        list.push({ algorithm: key.algorithm, selector: key.selector, publicKey: key.public_key });
        byDomain.set(key.domain_id, list);
      }
      return byDomain;
    },

    async sealedKeys(domainId: string): Promise<DkimKeyRow[]> {
      return db.selectFrom('domain_dkim_keys').selectAll().where('domain_id', '=', domainId).execute();
    },

    /** Newest first; `after` is the last ID of the previous page. */
    async list(
      projectId: string,
      options: { limit: number; after?: string | undefined },
    ): Promise<DomainRow[]> {
      let query = db.selectFrom('domains').selectAll().where('project_id', '=', projectId);
      if (options.after) query = query.where('id', '<', options.after);
      return query.orderBy('id', 'desc').limit(options.limit).execute();
    },

    async listAll(projectId: string): Promise<DomainRow[]> {
      return db
        .selectFrom('domains')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('name')
        .execute();
    },

    /** Every domain of every project, in ID order from `after`: what the daily re-check walks. */
    async page(after: string, limit: number): Promise<DomainRow[]> {
      return db
        .selectFrom('domains')
        .selectAll()
        .where('id', '>', after)
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    async saveCheck(
      executor: Db,
      id: string,
      changes: {
        status: DomainStatus;
        checks: string;
        last_checked_at: number;
        updated_at: number;
        verified_at: number | null;
      },
    ): Promise<void> {
      await executor.updateTable('domains').set(changes).where('id', '=', id).execute();
    },

    async remove(executor: Db, projectId: string, id: string): Promise<boolean> {
      const result = await executor
        .deleteFrom('domains')
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

export type DomainStore = ReturnType<typeof createDomainStore>;
