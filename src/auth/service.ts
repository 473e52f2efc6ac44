/**
 * API keys: issue (shown once), list, revoke, and authenticate a bearer token. Keys are stored as
 * SHA-256 hashes; a lookup is by hash, so a guessed key costs one indexed read. Last-used times
 * are kept in memory and written in batches, so authentication never writes on the hot path.
 */
import type { RejectedCredential } from '../audit/denials.js';
import type { AuditService } from '../audit/service.js';
import { sha256Hex } from '../platform/crypto.js';
import type { KeyMode } from '../platform/db/tables.js';
import { AppError, badRequest, notFound } from '../platform/http/errors.js';
import type { KeyPrincipal } from '../platform/http/principal.js';
import { newId } from '../platform/ids.js';
import type { ProjectService } from '../projects/service.js';
import { generateKey, keyHint, looksLikeKey } from './key-format.js';
import { keyLifetimeProblem } from './key-lifetime.js';
import { unknownScope } from './scopes.js';
import type { ApiKeyRow, KeyStore, KeyWithProject } from './store.js';

export interface CreateKeyInput {
  readonly projectId: string;
  readonly name?: string;
  readonly scopes: readonly string[];
  readonly mode: KeyMode;
  readonly expiresInMs?: number;
}

export interface KeyView {
  readonly id: string;
  readonly project_id: string;
  readonly name: string;
  readonly mode: KeyMode;
  readonly hint: string;
  readonly scopes: string[];
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
  readonly last_used_at: string | null;
}

// Clamped to the latest representable date: a row written before lifetimes were capped must not
// make every listing throw.
const iso = (ms: number | null): string | null =>
  ms === null ? null : new Date(Math.min(ms, 8.64e15)).toISOString();

export function keyView(row: ApiKeyRow): KeyView {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    mode: row.mode,
    hint: row.key_hint,
    scopes: JSON.parse(row.scopes) as string[],
    created_at: new Date(row.created_at).toISOString(),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
  };
}

/**
 * The scopes of a key as a set, shared by the requests of keys with the same scopes (a principal's
 * scopes are read-only): parsing them is not worth doing on every request. Bounded by clearing.
 */
const scopeSets = new Map<string, ReadonlySet<string>>();
function scopeSet(json: string): ReadonlySet<string> {
  let set = scopeSets.get(json);
  if (set === undefined) {
    if (scopeSets.size >= 1000) scopeSets.clear();
    set = new Set(JSON.parse(json) as string[]);
    scopeSets.set(json, set);
  }
  return set;
}

const unauthorized = (message: string, rejected?: RejectedCredential) =>
  new AppError('unauthorized', message, {
    headers: { 'WWW-Authenticate': 'Bearer' },
    ...(rejected ? { cause: rejected } : {}),
  });

/** What the audit log may know of a refused key (audit/denials.ts): never the key itself. */
function rejected(
  token: string,
  reason: RejectedCredential['rejectedCredential']['reason'],
  row?: KeyWithProject,
): RejectedCredential {
  const prefix = token.slice(0, 'ph_live_'.length);
  return {
    rejectedCredential: row
      ? { reason, prefix, keyId: row.id, organizationId: row.organization_id, projectId: row.project_id }
      : { reason, prefix },
  };
}

export function createKeyService(store: KeyStore, projects: ProjectService, audit: AuditService) {
  const pendingLastUsed = new Map<string, number>();

  return {
    async create(input: CreateKeyInput, actor: string): Promise<{ key: string; view: KeyView }> {
      if (input.scopes.length === 0) throw badRequest('At least one scope is required.');
      const unknown = unknownScope(input.scopes);
      if (unknown) throw badRequest(`Unknown scope "${unknown}".`);
      const lifetime = input.expiresInMs === undefined ? undefined : keyLifetimeProblem(input.expiresInMs);
      if (lifetime) throw badRequest(lifetime);
      const project = await projects.get(input.projectId);
      if (!project) throw notFound(`Project ${input.projectId}`);
      const now = Date.now();
      const key = generateKey(input.mode);
      const row: ApiKeyRow = {
        id: newId('key', now),
        project_id: project.id,
        name: input.name ?? `${input.mode} key`,
        mode: input.mode,
        key_hash: sha256Hex(key),
        key_hint: keyHint(key),
        scopes: JSON.stringify([...new Set(input.scopes)]),
        expires_at: input.expiresInMs === undefined ? null : now + input.expiresInMs,
        revoked_at: null,
        last_used_at: null,
        created_at: now,
      };
      await store.insert(row);
      await audit.record({
        actor,
        action: 'api_key.create',
        organizationId: project.organizationId,
        projectId: project.id,
        target: row.id,
        details: { scopes: input.scopes, mode: input.mode },
      });
      return { key, view: keyView(row) };
    },

    async list(projectId: string): Promise<KeyView[]> {
      const rows = await store.listByProject(projectId);
      return rows.map((row) =>
        keyView({ ...row, last_used_at: pendingLastUsed.get(row.id) ?? row.last_used_at }),
      );
    },

    async revoke(id: string, actor: string, projectId?: string): Promise<KeyView> {
      const row = await store.findById(id);
      // A key of another project is absent to a caller scoped to one (the dashboard's).
      if (!row || (projectId !== undefined && row.project_id !== projectId)) throw notFound(`API key ${id}`);
      const now = Date.now();
      if (row.revoked_at === null) {
        await store.revoke(id, now);
        const project = await projects.get(row.project_id);
        await audit.record({
          actor,
          action: 'api_key.revoke',
          organizationId: project?.organizationId ?? null,
          projectId: row.project_id,
          target: id,
        });
      }
      return keyView({ ...row, revoked_at: row.revoked_at ?? now });
    },

    /** Turns an `Authorization` header into a key principal, or a 401 that says why. */
    async authenticate(header: string | undefined): Promise<KeyPrincipal> {
      if (!header) throw unauthorized('Missing API key: send `Authorization: Bearer <key>`.');
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw unauthorized('Malformed Authorization header: expected `Bearer <key>`.');
      const token = match[1] as string;
      if (!looksLikeKey(token)) throw unauthorized('Invalid API key.');
      // The key and its project in one read: this runs on every request made with a key.
      const row = await store.findForAuth(sha256Hex(token));
      if (!row) throw unauthorized('Invalid API key.', rejected(token, 'unknown'));
      const now = Date.now();
      if (row.revoked_at !== null)
        throw unauthorized('This API key has been revoked.', rejected(token, 'revoked', row));
      if (row.expires_at !== null && row.expires_at <= now) {
        throw unauthorized(
          `This API key expired at ${new Date(row.expires_at).toISOString()}.`,
          rejected(token, 'expired', row),
        );
      }
      if (row.organization_id === null || row.project_status === null) throw unauthorized('Invalid API key.');
      pendingLastUsed.set(row.id, now);
      return {
        kind: 'key',
        keyId: row.id,
        projectId: row.project_id,
        organizationId: row.organization_id,
        projectStatus: row.project_status,
        mode: row.mode,
        scopes: scopeSet(row.scopes),
      };
    },

    /** Writes the buffered last-used times; called on a timer and at shutdown. */
    async flushLastUsed(): Promise<void> {
      if (pendingLastUsed.size === 0) return;
      const batch = new Map(pendingLastUsed);
      pendingLastUsed.clear();
      await store.touchMany(batch);
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
