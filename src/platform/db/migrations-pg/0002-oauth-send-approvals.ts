/**
 * PostgreSQL counterpart of SQLite's 0022-oauth and 0022a-send-approvals: OAuth clients, codes,
 * grants and tokens (hashes only), and the approvals of sends made through OAuth clients.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE TABLE "oauth_clients" ("id" text primary key, "name" text, "redirect_uris" text not null, "auth_method" text not null check (auth_method in ('none', 'client_secret_basic', 'client_secret_post')), "secret_hash" text, "grant_types" text not null, "response_types" text not null, "scope" text, "software_id" text, "software_version" text, "created_at" bigint not null)`,
  `CREATE TABLE "oauth_grants" ("id" text primary key, "client_id" text not null references "oauth_clients" ("id") on delete cascade, "user_id" text not null references "users" ("id") on delete cascade, "organization_id" text not null, "project_id" text not null references "projects" ("id") on delete cascade, "scopes" text not null, "created_at" bigint not null, "last_used_at" bigint, "revoked_at" bigint)`,
  `CREATE INDEX "oauth_grants_project" on "oauth_grants" ("project_id", "id")`,
  `CREATE TABLE "oauth_codes" ("code_hash" text primary key, "client_id" text not null references "oauth_clients" ("id") on delete cascade, "user_id" text not null references "users" ("id") on delete cascade, "organization_id" text not null, "project_id" text not null references "projects" ("id") on delete cascade, "redirect_uri" text not null, "scopes" text not null, "code_challenge" text not null, "expires_at" bigint not null, "used_at" bigint, "grant_id" text, "created_at" bigint not null)`,
  `CREATE INDEX "oauth_codes_expiry" on "oauth_codes" ("expires_at")`,
  `CREATE TABLE "oauth_tokens" ("token_hash" text primary key, "kind" text not null check (kind in ('access', 'refresh')), "grant_id" text not null references "oauth_grants" ("id") on delete cascade, "scopes" text not null, "expires_at" bigint not null, "used_at" bigint, "revoked_at" bigint, "created_at" bigint not null)`,
  `CREATE INDEX "oauth_tokens_expiry" on "oauth_tokens" ("expires_at")`,
  `CREATE INDEX "oauth_tokens_grant" on "oauth_tokens" ("grant_id")`,
  `CREATE TABLE "send_approval_policies" ("project_id" text primary key references "projects" ("id") on delete cascade, "require_approval" bigint default 1 not null, "trusted_clients" text default '[]' not null, "updated_at" bigint not null)`,
  `CREATE TABLE "send_approvals" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "message_id" text not null unique references "messages" ("id") on delete cascade, "client_id" text not null, "client_name" text not null, "grant_id" text not null, "user_id" text not null, "user_email" text not null, "status" text not null check (status in ('pending', 'approved', 'rejected', 'expired')), "note" text, "decided_by" text, "decided_at" bigint, "expires_at" bigint not null, "created_at" bigint not null)`,
  `CREATE INDEX "send_approvals_expiry" on "send_approvals" ("status", "expires_at")`,
  `CREATE INDEX "send_approvals_project" on "send_approvals" ("project_id", "status", "id")`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
