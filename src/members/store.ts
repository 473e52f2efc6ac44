/** The only file of the members capability that queries `organization_members` (with the users it names). */
import type { Selectable } from 'kysely';
import type { Db } from '../platform/db/database.js';
import type { OrganizationMembersTable, Role } from '../platform/db/tables.js';

export type MemberRow = Selectable<OrganizationMembersTable> & { email: string };

export function createMemberStore(db: Db) {
  const withEmail = (executor: Db) =>
    executor
      .selectFrom('organization_members')
      .innerJoin('users', 'users.id', 'organization_members.user_id')
      .selectAll('organization_members')
      .select('users.email');

  return {
    async find(organizationId: string, id: string, executor: Db = db): Promise<MemberRow | undefined> {
      return withEmail(executor)
        .where('organization_members.organization_id', '=', organizationId)
        .where('organization_members.id', '=', id)
        .executeTakeFirst();
    },
    async findByUser(
      userId: string,
      organizationId: string,
      executor: Db = db,
    ): Promise<MemberRow | undefined> {
      return withEmail(executor)
        .where('organization_members.organization_id', '=', organizationId)
        .where('organization_members.user_id', '=', userId)
        .executeTakeFirst();
    },
    /** The user's memberships, oldest first (a login opens the first). */
    async listByUser(userId: string): Promise<MemberRow[]> {
      return withEmail(db)
        .where('organization_members.user_id', '=', userId)
        .orderBy('organization_members.created_at')
        .orderBy('organization_members.id')
        .execute();
    },
    async listByOrganization(organizationId: string): Promise<MemberRow[]> {
      return withEmail(db)
        .where('organization_members.organization_id', '=', organizationId)
        .orderBy('organization_members.created_at')
        .orderBy('organization_members.id')
        .execute();
    },
    /** The organization's members with whether each has a password and TOTP (the operator's list). */
    async listWithCredentials(organizationId: string) {
      return db
        .selectFrom('organization_members')
        .innerJoin('users', 'users.id', 'organization_members.user_id')
        .select([
          'organization_members.id',
          'organization_members.user_id',
          'organization_members.role',
          'organization_members.created_at',
          'users.email',
          (eb) => eb('users.password_hash', 'is not', null).as('has_password'),
          (eb) => eb('users.totp_secret_sealed', 'is not', null).as('has_totp'),
        ])
        .where('organization_members.organization_id', '=', organizationId)
        .orderBy('organization_members.created_at')
        .orderBy('organization_members.id')
        .execute();
    },
    async insert(row: Selectable<OrganizationMembersTable>, executor: Db = db): Promise<void> {
      await executor.insertInto('organization_members').values(row).execute();
    },
    async setRole(id: string, role: Role, executor: Db = db): Promise<void> {
      await executor.updateTable('organization_members').set({ role }).where('id', '=', id).execute();
    },
    async remove(id: string, executor: Db = db): Promise<void> {
      await executor.deleteFrom('organization_members').where('id', '=', id).execute();
    },
    /**
     * What every session request reads of its member: role and address, and whether the
     * organization requires two-factor of owners and admins while this person has none.
     */
    async findForSession(userId: string, organizationId: string) {
      return db
        .selectFrom('organization_members')
        .innerJoin('users', 'users.id', 'organization_members.user_id')
        .innerJoin('organizations', 'organizations.id', 'organization_members.organization_id')
        .select([
          'organization_members.role',
          'users.email',
          (eb) => eb('users.totp_secret_sealed', 'is not', null).as('has_totp'),
          'organizations.two_factor_required_at',
        ])
        .where('organization_members.organization_id', '=', organizationId)
        .where('organization_members.user_id', '=', userId)
        .executeTakeFirst();
    },
    /** When the organization began requiring two-factor of owners and admins; null when it does not. */
    async twoFactorRequiredAt(organizationId: string): Promise<number | null> {
      const row = await db
        .selectFrom('organizations')
        .select('two_factor_required_at')
        .where('id', '=', organizationId)
        .executeTakeFirst();
      return row?.two_factor_required_at ?? null;
    },
    /** Turns the requirement on (at `at`) or off (null); this column is the members capability's. */
    async setTwoFactorRequired(organizationId: string, at: number | null, executor: Db = db): Promise<void> {
      await executor
        .updateTable('organizations')
        .set({ two_factor_required_at: at })
        .where('id', '=', organizationId)
        .execute();
    },
    /** The owners and admins who have no authenticator on. */
    async adminsWithoutTotp(organizationId: string) {
      return db
        .selectFrom('organization_members')
        .innerJoin('users', 'users.id', 'organization_members.user_id')
        .select(['organization_members.id', 'users.email', 'organization_members.role'])
        .where('organization_members.organization_id', '=', organizationId)
        .where('organization_members.role', 'in', ['owner', 'admin'])
        .where('users.totp_secret_sealed', 'is', null)
        .orderBy('organization_members.created_at')
        .orderBy('organization_members.id')
        .execute();
    },
    async countOwners(organizationId: string, executor: Db = db): Promise<number> {
      const row = await executor
        .selectFrom('organization_members')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', organizationId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type MemberStore = ReturnType<typeof createMemberStore>;
