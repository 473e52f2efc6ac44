/** The only file that queries organizations, users, organization members and projects. */
import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type {
  OrganizationMembersTable,
  OrganizationsTable,
  ProjectStatus,
  ProjectsTable,
  UsersTable,
} from '../platform/db/tables.js';
import { organizationNameKey } from './organization-name.js';

export type ProjectRow = ProjectsTable;

export function createProjectStore(db: Db) {
  return {
    /** Throws SQLITE_CONSTRAINT_UNIQUE when an organization of the same name exists. */
    async insertOrganization(row: Omit<Insertable<OrganizationsTable>, 'name_key'>): Promise<void> {
      await db
        .insertInto('organizations')
        .values({ ...row, name_key: organizationNameKey(row.name) })
        .execute();
    },
    async insertUser(row: Insertable<UsersTable>): Promise<void> {
      await db.insertInto('users').values(row).execute();
    },
    async insertMember(row: OrganizationMembersTable): Promise<void> {
      await db.insertInto('organization_members').values(row).execute();
    },
    async insertProject(row: ProjectsTable): Promise<void> {
      await db.insertInto('projects').values(row).execute();
    },
    /** Whether any user has a sealed TOTP secret (the boot must then not make a new master key). */
    async hasSealedTotp(): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('id')
        .where('totp_secret_sealed', 'is not', null)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
    /** The organization whose name is the same as `name` (ignoring case and surrounding spaces). */
    async findOrganizationByName(name: string): Promise<Pick<OrganizationsTable, 'id' | 'name'> | undefined> {
      return db
        .selectFrom('organizations')
        .select(['id', 'name'])
        .where('name_key', '=', organizationNameKey(name))
        .executeTakeFirst();
    },
    /** The system organization's first project (migration 0021a), if it exists yet. */
    async findSystemProject(): Promise<ProjectRow | undefined> {
      return db
        .selectFrom('projects')
        .innerJoin('organizations', 'organizations.id', 'projects.organization_id')
        .selectAll('projects')
        .where('organizations.kind', '=', 'system')
        .orderBy('projects.id')
        .limit(1)
        .executeTakeFirst();
    },
    /**
     * The system organization and its project in one transaction; throws a unique violation when
     * another process made them first. Its name key starts with a space, which no trimmed customer
     * name has, so it can never take a customer's name.
     */
    async insertSystem(org: { id: string; name: string }, project: ProjectsTable): Promise<void> {
      const write = async (trx: Db) => {
        await trx
          .insertInto('organizations')
          .values({
            id: org.id,
            name: org.name,
            name_key: ' system',
            kind: 'system',
            created_at: project.created_at,
          })
          .execute();
        await trx.insertInto('projects').values(project).execute();
      };
      // Inside the caller's transaction when the store was built on one (`admin bootstrap`).
      await (db.isTransaction ? write(db) : db.transaction().execute(write));
    },
    async findUserByEmail(email: string): Promise<Selectable<UsersTable> | undefined> {
      return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },
    async findProject(id: string, executor: Db = db): Promise<ProjectRow | undefined> {
      return executor.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async findOrganization(id: string): Promise<Pick<OrganizationsTable, 'id' | 'name'> | undefined> {
      return db.selectFrom('organizations').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
    },
    /** The organization's oldest project: a new session's default. */
    async firstProjectOf(organizationId: string): Promise<ProjectRow | undefined> {
      return db
        .selectFrom('projects')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .orderBy('created_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
    },
    async projectsOf(organizationId: string): Promise<ProjectRow[]> {
      return db
        .selectFrom('projects')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .orderBy('id')
        .execute();
    },
    async listProjects(): Promise<Array<ProjectRow & { organization_name: string }>> {
      return db
        .selectFrom('projects')
        .innerJoin('organizations', 'organizations.id', 'projects.organization_id')
        .selectAll('projects')
        .select('organizations.name as organization_name')
        .orderBy('projects.id')
        .execute();
    },
    async setStatus(id: string, status: ProjectStatus, at: number, executor: Db = db): Promise<boolean> {
      const result = await executor
        .updateTable('projects')
        .set({ status, updated_at: at })
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async memberEmails(organizationId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('organization_members')
        .innerJoin('users', 'users.id', 'organization_members.user_id')
        .select('users.email')
        .where('organization_members.organization_id', '=', organizationId)
        .execute();
      return rows.map((row) => row.email);
    },
  };
}

export type ProjectStore = ReturnType<typeof createProjectStore>;
