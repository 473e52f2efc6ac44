/**
 * Dashboard sessions: made by a login, authenticated on every session route, revoked by logout,
 * by a member's removal and by a credential reset. The token (`phs_...`) is shown once and stored
 * as its SHA-256. A session ends at `expires_at` (sign-in + `accounts.session_lifetime`) or after
 * `accounts.session_idle_timeout` without a request, whichever comes first. Last-seen times are
 * kept in memory and written every few seconds (background.ts), so a request never writes.
 */
import type { DeniedSession } from '../../audit/denials.js';
import { parseDuration } from '../../platform/config/duration.js';
import type { Config } from '../../platform/config/schema.js';
import { sha256Hex } from '../../platform/crypto.js';
import type { Db } from '../../platform/db/database.js';
import type { AuthMethod, Role } from '../../platform/db/tables.js';
import { AppError, notFound } from '../../platform/http/errors.js';
import type { SessionPrincipal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import type { ProjectService } from '../../projects/service.js';
import { unauthorized } from '../bearer.js';
import type { SessionRow, SessionStore } from './store.js';
import { generateSessionToken, looksLikeSessionToken } from './token.js';

/** Spec §2.9. */
export interface SessionView {
  readonly id: string;
  readonly user_id: string;
  readonly email: string;
  readonly organization_id: string;
  readonly project_id: string;
  readonly project_status: string;
  readonly auth_method: AuthMethod;
  readonly created_at: string;
  readonly last_seen_at: string;
  readonly expires_at: string;
  readonly ip_address?: string;
  readonly user_agent?: string;
}

export interface NewSession {
  readonly userId: string;
  readonly email: string;
  readonly organizationId: string;
  readonly projectId: string;
  readonly method: AuthMethod;
  readonly ip: string | null;
  readonly userAgent: string | null;
}

export interface SessionDeps {
  readonly store: SessionStore;
  readonly config: Config;
  readonly projects: Pick<ProjectService, 'get'>;
  /**
   * The member's role and address now, and whether two-factor is required of them but missing;
   * undefined when the user is no longer a member.
   */
  readonly membership: (
    userId: string,
    organizationId: string,
  ) => Promise<{ role: Role; email: string; twoFactorMissing?: boolean } | undefined>;
}

/** A live session with its last-seen time (buffered ones included) and when it will end. */
export interface LiveSession {
  readonly row: SessionRow;
  readonly lastSeenAt: number;
  readonly endsAt: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function createSessionService(deps: SessionDeps) {
  const { store, projects, membership } = deps;
  const idleMs = parseDuration(deps.config.accounts.session_idle_timeout);
  const lifetimeMs = parseDuration(deps.config.accounts.session_lifetime);
  const pendingSeen = new Map<string, number>();

  const lastSeen = (row: SessionRow) => Math.max(row.last_seen_at, pendingSeen.get(row.id) ?? 0);
  const endOf = (row: SessionRow) => Math.min(row.expires_at, lastSeen(row) + idleMs);

  const view = (row: SessionRow, email: string, projectId: string, projectStatus: string): SessionView => ({
    id: row.id,
    user_id: row.user_id,
    email,
    organization_id: row.organization_id,
    project_id: projectId,
    project_status: projectStatus,
    auth_method: row.auth_method,
    created_at: iso(row.created_at),
    last_seen_at: iso(lastSeen(row)),
    expires_at: iso(endOf(row)),
    ...(row.ip_address === null ? {} : { ip_address: row.ip_address }),
    ...(row.user_agent === null ? {} : { user_agent: row.user_agent }),
  });

  return {
    /** A new session; the token is in the result only. */
    async create(input: NewSession, executor?: Db): Promise<{ token: string; session: SessionView }> {
      const now = Date.now();
      const token = generateSessionToken();
      const row: SessionRow = {
        id: newId('ses', now),
        token_hash: sha256Hex(token),
        user_id: input.userId,
        organization_id: input.organizationId,
        project_id: input.projectId,
        auth_method: input.method,
        ip_address: input.ip,
        user_agent: input.userAgent === null ? null : input.userAgent.slice(0, 512),
        created_at: now,
        last_seen_at: now,
        expires_at: now + lifetimeMs,
        revoked_at: null,
      };
      await (executor ? executor.insertInto('sessions').values(row).execute() : store.insert(row));
      const project = await projects.get(input.projectId);
      return { token, session: view(row, input.email, input.projectId, project?.status ?? 'sandbox') };
    },

    /**
     * A session token (and the project a request selects) → the principal, or a 401 saying why.
     * A selected project of another organization is a 404, as if it did not exist.
     */
    async authenticate(
      token: string | undefined,
      selectedProject: string | undefined,
    ): Promise<SessionPrincipal> {
      if (token === undefined)
        throw unauthorized('Missing session token: send `Authorization: Bearer <session token>`.');
      if (!looksLikeSessionToken(token)) throw unauthorized('Invalid session token.');
      const row = await store.findByHash(sha256Hex(token));
      if (!row) throw unauthorized('Invalid session token.');
      const now = Date.now();
      if (row.revoked_at !== null)
        throw unauthorized('This session has ended (signed out or revoked); sign in again.');
      if (endOf(row) <= now) throw unauthorized('This session has expired; sign in again.');
      const member = await membership(row.user_id, row.organization_id);
      if (!member)
        throw unauthorized('This session has ended: the account is no longer a member of the organization.');
      const projectId = selectedProject ?? row.project_id;
      const project = await projects.get(projectId);
      if (!project || project.organizationId !== row.organization_id) {
        // What the audit log records of it (audit/denials.ts); the answer is a plain 404.
        const denied: DeniedSession = {
          deniedSession: {
            userId: row.user_id,
            organizationId: row.organization_id,
            authMethod: row.auth_method,
            projectId,
          },
        };
        throw new AppError('not_found', notFound(`Project ${projectId}`).message, { cause: denied });
      }
      pendingSeen.set(row.id, now);
      return {
        kind: 'session',
        sessionId: row.id,
        userId: row.user_id,
        email: member.email,
        organizationId: row.organization_id,
        role: member.role,
        authMethod: row.auth_method,
        projectId: project.id,
        projectStatus: project.status,
        ...(member.twoFactorMissing ? { twoFactorMissing: true } : {}),
      };
    },

    /** Spec §2.9 for the request's session and selected project. */
    async describe(principal: SessionPrincipal): Promise<SessionView> {
      const row = await store.findById(principal.sessionId);
      if (!row) throw unauthorized('Invalid session token.');
      return view(row, principal.email, principal.projectId, principal.projectStatus);
    },

    /** Whether the session was opened (a sign-in: only one opens a session) at or after `since`. */
    async signedInSince(sessionId: string, since: number): Promise<boolean> {
      const row = await store.findById(sessionId);
      return row !== undefined && row.created_at >= since;
    },

    async revoke(sessionId: string): Promise<void> {
      pendingSeen.delete(sessionId);
      await store.revoke(sessionId, Date.now());
    },

    /** Ends every session the user has in the organization at once (a member removed). */
    async revokeMember(userId: string, organizationId: string, executor?: Db): Promise<number> {
      return (await store.revokeMember(userId, organizationId, Date.now(), executor)).length;
    },

    /** Ends every session of the user (an operator reset a credential). */
    async revokeUser(userId: string, executor?: Db): Promise<number> {
      return (await store.revokeUser(userId, Date.now(), executor)).length;
    },

    /** The user's live sessions (every organization), newest first, with their times as of now. */
    async listLive(userId: string): Promise<LiveSession[]> {
      const now = Date.now();
      return (await store.listLive(userId, now))
        .map((row) => ({ row, lastSeenAt: lastSeen(row), endsAt: endOf(row) }))
        .filter((live) => live.endsAt > now);
    },

    /** Ends one of the user's own sessions; false when they have no such live session. */
    async revokeOwn(userId: string, sessionId: string): Promise<boolean> {
      pendingSeen.delete(sessionId);
      return store.revokeOwn(userId, sessionId, Date.now());
    },

    /**
     * Ends every session of the user but `keepId` (the one making the request); how many of them
     * were live (sessions already past their end are closed too, and not counted).
     */
    async revokeOthers(userId: string, keepId: string): Promise<number> {
      const now = Date.now();
      const ended = await store.revokeOthers(userId, keepId, now);
      const live = ended.filter((row) => {
        const seen = Math.max(row.last_seen_at, pendingSeen.get(row.id) ?? 0);
        pendingSeen.delete(row.id);
        return Math.min(row.expires_at, seen + idleMs) > now;
      });
      return live.length;
    },

    /** Writes the buffered last-seen times; called on a timer and at shutdown. */
    async flushLastSeen(): Promise<void> {
      if (pendingSeen.size === 0) return;
      const batch = new Map(pendingSeen);
      pendingSeen.clear();
      await store.touchMany(batch);
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
