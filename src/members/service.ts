/**
 * Organization members and their roles (spec §4.8): list, add (making the account when there is
 * none, and mailing an invitation through system mail), change a role, remove (ending the removed
 * person's sessions at once, in the same transaction). An organization always keeps an owner, and
 * only owners touch the owner role (permissions.ts).
 */
import type { AuditService } from '../audit/service.js';
import type { Locale } from '../auth/login/locales.js';
import type { SessionService } from '../auth/session/service.js';
import type { UserService } from '../auth/users/service.js';
import type { Db } from '../platform/db/database.js';
import type { Role } from '../platform/db/tables.js';
import { conflict, forbidden, notFound } from '../platform/http/errors.js';
import type { SessionPrincipal } from '../platform/http/principal.js';
import { newId } from '../platform/ids.js';
import type { Logger } from '../platform/log.js';
import type { ProjectService } from '../projects/service.js';
import type { SystemMailService } from '../system-mail/service.js';
import { invitationMail } from './invitation.js';
import { requirePermission } from './permissions.js';
import type { MemberRow, MemberStore } from './store.js';

export interface MemberView {
  readonly id: string;
  readonly user_id: string;
  readonly email: string;
  readonly role: Role;
  readonly created_at: string;
}

export const memberView = (row: MemberRow): MemberView => ({
  id: row.id,
  user_id: row.user_id,
  email: row.email,
  role: row.role,
  created_at: new Date(row.created_at).toISOString(),
});

export interface MemberDeps {
  readonly db: Db;
  readonly store: MemberStore;
  readonly users: UserService;
  readonly sessions: SessionService;
  readonly projects: ProjectService;
  readonly systemMail: SystemMailService;
  readonly audit: AuditService;
  readonly publicUrl: string;
  readonly product: string;
  readonly log: Logger;
}

const lastOwner = () =>
  conflict('An organization keeps at least one owner: make another member an owner first.');

export function createMemberService(deps: MemberDeps) {
  const { db, store, users, sessions, projects, systemMail, audit } = deps;
  const log = deps.log.child({ capability: 'members' });

  /** The member with this ID in the caller's organization, or 404. */
  const load = async (principal: SessionPrincipal, id: string, executor?: Db) => {
    const row = await store.find(principal.organizationId, id, executor);
    if (!row) throw notFound(`Member ${id}`);
    return row;
  };

  const ownerRule = (principal: SessionPrincipal, touchesOwner: boolean) => {
    if (touchesOwner && principal.role !== 'owner')
      throw forbidden('Only an owner may grant the owner role, change an owner or remove one.');
  };

  return {
    async list(principal: SessionPrincipal): Promise<MemberView[]> {
      requirePermission(principal, 'members:read');
      return (await store.listByOrganization(principal.organizationId)).map(memberView);
    },

    async add(
      principal: SessionPrincipal,
      input: { email: string; role: Role },
      locale: Locale,
    ): Promise<MemberView> {
      requirePermission(principal, 'members:manage');
      ownerRule(principal, input.role === 'owner');
      const { view, created } = await db.transaction().execute(async (trx) => {
        const { user, created } = await users.ensure(input.email, trx);
        const existing = await store.findByUser(user.id, principal.organizationId, trx);
        if (existing)
          throw conflict(`${input.email} is already a member (${existing.id}, role ${existing.role}).`);
        const now = Date.now();
        const row = {
          id: newId('mem', now),
          organization_id: principal.organizationId,
          user_id: user.id,
          role: input.role,
          created_at: now,
        };
        await store.insert(row, trx);
        await audit.record(
          {
            action: 'member.add',
            target: row.id,
            details: { email: input.email, role: input.role, new_account: created },
          },
          trx,
        );
        return { view: memberView({ ...row, email: user.email }), created };
      });
      const org = (await projects.organizationName(principal.organizationId)) ?? principal.organizationId;
      const mail = invitationMail(locale, {
        org,
        role: input.role,
        url: deps.publicUrl,
        email: view.email,
        product: deps.product,
      });
      await systemMail
        .send({ to: view.email, ...mail, tags: { kind: 'invitation', new_account: String(created) } })
        .catch((error: unknown) => log.warn({ err: error, member_id: view.id }, 'invitation mail not sent'));
      return view;
    },

    async changeRole(principal: SessionPrincipal, id: string, role: Role): Promise<void> {
      requirePermission(principal, 'members:manage');
      await db.transaction().execute(async (trx) => {
        const row = await load(principal, id, trx);
        ownerRule(principal, row.role === 'owner' || role === 'owner');
        if (row.role === role) return;
        if (row.role === 'owner' && (await store.countOwners(principal.organizationId, trx)) <= 1)
          throw lastOwner();
        await store.setRole(id, role, trx);
        await audit.record(
          {
            action: 'member.role_change',
            target: id,
            details: { email: row.email, from: row.role, to: role },
          },
          trx,
        );
      });
    },

    async remove(principal: SessionPrincipal, id: string): Promise<void> {
      requirePermission(principal, 'members:manage');
      await db.transaction().execute(async (trx) => {
        const row = await load(principal, id, trx);
        ownerRule(principal, row.role === 'owner');
        if (row.role === 'owner' && (await store.countOwners(principal.organizationId, trx)) <= 1)
          throw lastOwner();
        await store.remove(id, trx);
        const ended = await sessions.revokeMember(row.user_id, principal.organizationId, trx);
        await audit.record(
          {
            action: 'member.remove',
            target: id,
            details: { email: row.email, role: row.role, sessions_revoked: ended },
          },
          trx,
        );
      });
    },
  };
}

export type MemberService = ReturnType<typeof createMemberService>;
