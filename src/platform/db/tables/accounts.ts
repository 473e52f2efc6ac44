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
}

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  totp_secret_sealed: string | null;
  created_at: number;
}

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
  actor: string;
  action: string;
  target: string | null;
  details: JsonText;
  created_at: number;
}
