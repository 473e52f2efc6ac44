/**
 * Row types of third-party access (migrations 0022, 0022a): OAuth clients, codes, grants and
 * tokens, and the agent sends held for approval with each project's approval policy. Secrets,
 * codes and tokens are stored only as SHA-256 hashes.
 */
import type { Defaulted, JsonText } from './columns.js';

export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

export interface OAuthClientsTable {
  /** `phc_...`: the client_id. */
  id: string;
  name: string | null;
  /** JSON list of the registered redirect URIs, matched exactly. */
  redirect_uris: JsonText;
  auth_method: ClientAuthMethod;
  /** SHA-256 of the client secret, hex; null for a public client. */
  secret_hash: string | null;
  grant_types: JsonText;
  response_types: JsonText;
  /** The scopes the client may ask for, space-separated; null: any API key scope. */
  scope: string | null;
  software_id: string | null;
  software_version: string | null;
  created_at: number;
}

export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  user_id: string;
  organization_id: string;
  project_id: string;
  redirect_uri: string;
  scopes: JsonText;
  /** The S256 challenge, base64url. */
  code_challenge: string;
  expires_at: number;
  /** Set by the exchange; a second use revokes the grant it made. */
  used_at: number | null;
  grant_id: string | null;
  created_at: number;
}

export interface OAuthGrantsTable {
  /** `grt_...` */
  id: string;
  client_id: string;
  user_id: string;
  organization_id: string;
  project_id: string;
  scopes: JsonText;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export type OAuthTokenKind = 'access' | 'refresh';

export interface OAuthTokensTable {
  token_hash: string;
  kind: OAuthTokenKind;
  grant_id: string;
  scopes: JsonText;
  expires_at: number;
  /** A refresh token once rotated: a second use revokes the grant. */
  used_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

export interface SendApprovalsTable {
  /** `apr_...` */
  id: string;
  project_id: string;
  message_id: string;
  client_id: string;
  client_name: string;
  grant_id: string;
  /** The member on whose behalf the client sent, and their address then. */
  user_id: string;
  user_email: string;
  status: ApprovalStatus;
  note: string | null;
  /** The member who approved or rejected. */
  decided_by: string | null;
  decided_at: number | null;
  expires_at: number;
  created_at: number;
}

export interface SendApprovalPoliciesTable {
  project_id: string;
  require_approval: Defaulted<number>;
  /** JSON list of client IDs whose sends need no approval. */
  trusted_clients: Defaulted<JsonText>;
  updated_at: number;
}
