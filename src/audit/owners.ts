/**
 * Which project and organization own an ID, for the record of a 404 that hid another tenant's
 * resource (denials.ts). It reads other capabilities' tables, by primary key and only after a
 * 404 an authenticated caller got: the audit log is the one place that must tell "no such ID"
 * from "not yours", and it never answers a request with what it finds.
 */
import type { Db } from '../platform/db/database.js';

/** ID prefix → the table whose rows carry it, each with `id` and `project_id`. */
const TABLES = {
  msg: 'messages',
  key: 'api_keys',
  dom: 'domains',
  tpl: 'templates',
  wh: 'webhook_endpoints',
  sup: 'suppressions',
  rte: 'inbound_routes',
  inb: 'inbound_messages',
  thr: 'inbound_threads',
  aud: 'audiences',
  bc: 'broadcasts',
  apr: 'send_approvals',
  rep: 'reputation_connections',
  dip: 'dedicated_ip_requests',
} as const;

const ID = /^([a-z]+)_[0-9A-HJKMNP-TV-Z]{26}$/;

export interface Owner {
  readonly projectId: string;
  readonly organizationId: string;
}

export function createOwnerLookup(db: Db) {
  return {
    async ownerOf(id: string): Promise<Owner | undefined> {
      const prefix = ID.exec(id)?.[1];
      if (prefix === 'prj')
        return db
          .selectFrom('projects')
          .select(['id as projectId', 'organization_id as organizationId'])
          .where('id', '=', id)
          .executeTakeFirst();
      if (prefix === undefined || !Object.hasOwn(TABLES, prefix)) return undefined;
      // Every table listed has `id` and `project_id`; the cast only names one for the types.
      const table = TABLES[prefix as keyof typeof TABLES] as 'messages';
      const row = await db
        .selectFrom(table)
        .innerJoin('projects', 'projects.id', `${table}.project_id`)
        .select(['projects.id as projectId', 'projects.organization_id as organizationId'])
        .where(`${table}.id`, '=', id)
        .executeTakeFirst();
      return row;
    },
  };
}

export type OwnerLookup = ReturnType<typeof createOwnerLookup>;
