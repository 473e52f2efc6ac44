/**
 * Organizations, their members and projects. A project starts in `sandbox`, becomes `active` when
 * its first domain is verified or an operator activates it, and a `suspended` project may not send.
 */
import type { AuditService } from '../audit/service.js';
import type { Db } from '../platform/db/database.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';
import { conflict, notFound } from '../platform/http/errors.js';
import { newId } from '../platform/ids.js';
import type { ProjectStatus, Role } from '../platform/db/tables.js';
import type { ProjectRow, ProjectStore } from './store.js';

export interface BootstrapInput {
  readonly email: string;
  readonly organization: string;
  readonly project: string;
  readonly role?: Role;
}

export interface Bootstrapped {
  readonly organizationId: string;
  readonly projectId: string;
  readonly userId: string;
}

export interface ProjectView {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly status: ProjectStatus;
}

const view = (row: ProjectRow): ProjectView => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  status: row.status,
});

export function createProjectService(store: ProjectStore, audit: AuditService) {
  const insertOrganization = async (id: string, name: string, now: number) => {
    try {
      await store.insertOrganization({ id, name, created_at: now });
    } catch (error) {
      const taken = isUniqueViolation(error) ? await store.findOrganizationByName(name) : undefined;
      if (!taken) throw error;
      throw conflict(
        `An organization named "${taken.name}" already exists (${taken.id}); nothing was created. ` +
          'List its projects with `posthorn admin projects list` and issue a key with `posthorn admin keys create --project ...`.',
      );
    }
  };

  return {
    /**
     * One organization with one owner and one sandbox project; the user is reused if known. An
     * organization of the same name (ignoring case and surrounding spaces) is a 409: running the
     * setup twice must not leave two look-alike organizations, each with its own full-access key.
     * The unique index decides, not a lookup before the insert: two bootstraps at the same moment
     * would both pass a lookup. The caller's transaction then rolls back whatever it did before.
     */
    async bootstrap(input: BootstrapInput, actor: string): Promise<Bootstrapped> {
      const now = Date.now();
      const email = input.email.trim().toLowerCase();
      const organizationId = newId('org', now);
      const projectId = newId('prj', now);
      // The organization first: the transaction's first statement writes, so a bootstrap running
      // beside it waits for its commit (busy timeout) and then meets the index, not a stale read.
      await insertOrganization(organizationId, input.organization.trim(), now);
      const existing = await store.findUserByEmail(email);
      const userId = existing?.id ?? newId('usr', now);
      if (!existing) {
        await store.insertUser({
          id: userId,
          email,
          name: null,
          password_hash: null,
          totp_secret_sealed: null,
          created_at: now,
        });
      }
      await store.insertMember({
        id: newId('mem', now),
        organization_id: organizationId,
        user_id: userId,
        role: input.role ?? 'owner',
        created_at: now,
      });
      await store.insertProject({
        id: projectId,
        organization_id: organizationId,
        name: input.project,
        status: 'sandbox',
        created_at: now,
        updated_at: now,
      });
      await audit.record({
        actor,
        action: 'organization.bootstrap',
        organizationId,
        projectId,
        target: userId,
      });
      return { organizationId, projectId, userId };
    },

    /**
     * The operator's system project (the owner of Posthorn's own mail), made on first call:
     * organization "Posthorn system" with one active project "System mail". Idempotent across
     * processes: the database keeps one system organization (migration 0021a).
     */
    async ensureSystemProject(): Promise<ProjectView> {
      const existing = await store.findSystemProject();
      if (existing) return view(existing);
      const now = Date.now();
      const project = {
        id: newId('prj', now),
        organization_id: newId('org', now),
        name: 'System mail',
        status: 'active' as const,
        created_at: now,
        updated_at: now,
      };
      try {
        await store.insertSystem({ id: project.organization_id, name: 'Posthorn system' }, project);
      } catch (error) {
        const made = isUniqueViolation(error) ? await store.findSystemProject() : undefined;
        if (!made) throw error;
        return view(made);
      }
      return view(project);
    },

    async get(id: string): Promise<ProjectView | undefined> {
      const row = await store.findProject(id);
      return row ? view(row) : undefined;
    },

    /** An organization by ID or by name (compared as names are), for the operator's commands. */
    async findOrganization(idOrName: string): Promise<{ id: string; name: string } | undefined> {
      return (await store.findOrganization(idOrName)) ?? (await store.findOrganizationByName(idOrName));
    },

    /** The organization's name, or undefined when there is no such organization. */
    async organizationName(id: string): Promise<string | undefined> {
      return (await store.findOrganization(id))?.name;
    },

    /** The organization's oldest project (a new session's default), if it has one. */
    async firstOf(organizationId: string): Promise<ProjectView | undefined> {
      const row = await store.firstProjectOf(organizationId);
      return row ? view(row) : undefined;
    },

    /** The projects of one organization, oldest first (the dashboard's project switcher). */
    async listOf(organizationId: string): Promise<ProjectView[]> {
      return (await store.projectsOf(organizationId)).map(view);
    },

    async list(): Promise<Array<ProjectView & { organizationName: string }>> {
      const rows = await store.listProjects();
      return rows.map((row) => ({ ...view(row), organizationName: row.organization_name }));
    },

    /** Sets the status with an audit entry; inside `executor`'s transaction when one is given. */
    async setStatus(id: string, status: ProjectStatus, actor: string, executor?: Db): Promise<ProjectView> {
      const row = await store.findProject(id, executor);
      if (!row) throw notFound(`Project ${id}`);
      if (row.status !== status) {
        await store.setStatus(id, status, Date.now(), executor);
        await audit.record(
          {
            actor,
            action: `project.${status === 'active' ? 'activate' : status === 'suspended' ? 'suspend' : 'sandbox'}`,
            organizationId: row.organization_id,
            projectId: id,
            target: id,
            details: { from: row.status, to: status },
          },
          executor,
        );
      }
      return { ...view(row), status };
    },

    /**
     * Moves a sandbox project to active (the first verified domain does this, in the transaction
     * that verifies it); others unchanged.
     */
    async activateFromSandbox(id: string, actor: string, executor?: Db): Promise<boolean> {
      const row = await store.findProject(id, executor);
      if (row?.status !== 'sandbox') return false;
      await this.setStatus(id, 'active', actor, executor);
      return true;
    },

    /** Addresses the shared sandbox sender may reach: the organization's members. */
    async memberEmails(organizationId: string): Promise<string[]> {
      return store.memberEmails(organizationId);
    },
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
