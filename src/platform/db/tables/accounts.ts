/**
 * Row types of who may do what: organizations, users and their roles, projects, API keys and the
 * audit log.
 */
import type { Defaulted, JsonText } from './columns.js';

export type Role = 'owner' | 'admin' | 'developer' | 'analyst' | 'billing';
export type ProjectStatus = 'sandbox' | 'active' | 'suspended';
export type KeyMode = 'live' | 'test';

/** `system` is the one organization that owns Posthorn's own mail (migration 0021a). */
export type OrganizationKind = 'customer' | 'system';

export interface OrganizationsTable {
  id: string;
  name: string;
  /** The name as names are compared (projects/organization-name.ts); unique. */
  name_key: string;
  kind: Defaulted<OrganizationKind>;
  created_at: number;
  /** When an owner required two-factor of owners and admins (members/two-factor.ts); null: not required. */
  two_factor_required_at: Defaulted<number | null>;
}

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  /** argon2id, PHC string (auth/login/password.ts). */
  password_hash: string | null;
  /** The confirmed TOTP secret, sealed with the master key; set means two-factor is on. */
  totp_secret_sealed: string | null;
  /** A secret handed out by enrolment, waiting for its first code (migration 0021b). */
  totp_pending_sealed: Defaulted<string | null>;
  /** The last 30-second step a TOTP code was accepted for: a code is never accepted twice. */
  totp_last_step: Defaulted<number | null>;
  totp_enabled_at: Defaulted<number | null>;
  password_updated_at: Defaulted<number | null>;
  created_at: number;
}

export type AuthMethod = 'email_code' | 'password';

/** A dashboard session (migration 0021b): the token itself is never stored, only its SHA-256. */
export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  organization_id: string;
  /** The session's default project; `X-Posthorn-Project-ID` selects another of the organization. */
  project_id: string;
  auth_method: AuthMethod;
  ip_address: string | null;
  user_agent: string | null;
  created_at: number;
  /** As last written; the service keeps newer times in memory and writes them every few seconds. */
  last_seen_at: number;
  /** The absolute end of the session; the idle timeout may end it sooner. */
  expires_at: number;
  revoked_at: number | null;
}

/** The one live login code of a user: a new request replaces it. */
export interface LoginCodesTable {
  user_id: string;
  /** HMAC-SHA256 of the code under a key derived from the master key, hex. */
  code_hash: string;
  attempts: Defaulted<number>;
  expires_at: number;
  created_at: number;
}

export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  used_at: number | null;
  created_at: number;
}

/** Who acted, as the audit log records it. */
export type ActorKind = 'session' | 'key' | 'oauth' | 'cli' | 'system';

export interface OrganizationMembersTable {
  id: string;
  organization_id: string;
  user_id: string;
  role: Role;
  created_at: number;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  status: ProjectStatus;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  project_id: string;
  name: string;
  mode: KeyMode;
  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  key_hash: string;
  /** The last four characters, so a person can tell keys apart. */
  key_hint: string;
  scopes: JsonText;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

export interface AuditLogTable {
  id: string;
  organization_id: string | null;
  project_id: string | null;
  /** The actor's ID (`usr_...`, `key_...`), `cli` or `system`. */
  actor: string;
  actor_kind: Defaulted<ActorKind>;
  /** How the actor authenticated: `email_code`, `password`, `api_key`, `oauth`, `cli`. */
  auth_method: Defaulted<string | null>;
  ip_address: Defaulted<string | null>;
  user_agent: Defaulted<string | null>;
  action: string;
  target: string | null;
  details: JsonText;
  created_at: number;
}
