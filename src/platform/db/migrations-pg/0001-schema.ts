/**
 * The PostgreSQL schema as it stands: every table, index and trigger of the SQLite migrations up to
 * 0026, written once for PostgreSQL (not a replay of SQLite's history). Types map one to one:
 * integer -> bigint (ms times exceed 32 bits; `pg` parses int8 as a number, database-pg.ts), text ->
 * text, blob -> bytea, integer autoincrement keys -> identity columns. JSON columns stay text, so
 * both engines hand the code the same values.
 *
 * What PostgreSQL has beyond SQLite, for its adapters (the schema comparison allows extra columns):
 * - `messages.rowid`, `message_recipients.rowid`: identity columns standing for SQLite's rowid,
 *   which the dashboard's history indexer follows;
 * - `events.seq` and `events.tx` (the inserting transaction's id): readers follow the log by
 *   (tx, seq) below the oldest running transaction, so an event committed late is never skipped
 *   (events/log-pg.ts);
 * - `delivery_jobs.lease`, `webhook_attempts.lease`: the token of the claim that holds a row; every
 *   write of an outcome names it, so a node whose lease ran out cannot overwrite another's;
 * - `message_search`: the dashboard's trigram search (SQLite's FTS5 table) as a table with a pg_trgm
 *   GIN index;
 * - the two triggers of SQLite's schema, as PL/pgSQL functions.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  `CREATE TABLE "analytics_daily" ("project_id" text not null, "mode" text not null check (mode in ('live', 'test')), "day" bigint not null, "lane" text not null, "accepted" bigint default 0 not null, "queued" bigint default 0 not null, "deferred" bigint default 0 not null, "delivered" bigint default 0 not null, "bounced" bigint default 0 not null, "complained" bigint default 0 not null, "failed" bigint default 0 not null, "suppressed" bigint default 0 not null, "unique_opens" bigint default 0 not null, "unique_clicks" bigint default 0 not null, "latency" text default '[]' not null, "machine_opens" bigint default 0 not null, "machine_clicks" bigint default 0 not null, constraint "analytics_daily_pk" primary key ("project_id", "mode", "day", "lane"))`,
  `CREATE TABLE "analytics_recipients" ("message_id" text not null, "recipient" text not null, "project_id" text not null, "day" bigint not null, "lane" text not null, "status" text not null, "queued_at" bigint, "delivered_at" bigint, "latency_ms" bigint, "opened" bigint default 0 not null, "clicked" bigint default 0 not null, "updated_at" bigint not null, "mode" text default 'live' not null check (mode in ('live', 'test')), "machine_opens" bigint default 0 not null, "machine_clicks" bigint default 0 not null, constraint "analytics_recipients_pk" primary key ("message_id", "recipient"))`,
  `CREATE INDEX "analytics_recipients_settled" on "analytics_recipients" ("updated_at") where status not in ('scheduled', 'queued', 'deferred')`,
  `CREATE TABLE "organizations" ("id" text primary key, "name" text not null, "created_at" bigint not null, "name_key" text default '' not null, "kind" text default 'customer' not null check (kind in ('customer', 'system')))`,
  `CREATE UNIQUE INDEX "organizations_name_key" on "organizations" ("name_key")`,
  `CREATE UNIQUE INDEX organizations_one_system on organizations (kind) where kind = 'system'`,
  `CREATE TABLE "projects" ("id" text primary key, "organization_id" text not null references "organizations" ("id") on delete cascade, "name" text not null, "status" text not null check (status in ('sandbox', 'active', 'suspended')), "created_at" bigint not null, "updated_at" bigint not null)`,
  `CREATE INDEX "projects_organization" on "projects" ("organization_id")`,
  `CREATE TABLE "api_keys" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "name" text not null, "mode" text not null check (mode in ('live', 'test')), "key_hash" text not null unique, "key_hint" text not null, "scopes" text not null, "expires_at" bigint, "revoked_at" bigint, "last_used_at" bigint, "created_at" bigint not null)`,
  `CREATE INDEX "api_keys_project" on "api_keys" ("project_id")`,
  `CREATE TABLE "audiences" ("id" text primary key, "project_id" text not null, "name" text not null, "description" text, "created_at" bigint not null, "updated_at" bigint not null)`,
  `CREATE INDEX "audiences_project" on "audiences" ("project_id", "id")`,
  `CREATE TABLE "audit_log" ("id" text primary key, "organization_id" text, "project_id" text, "actor" text not null, "action" text not null, "target" text, "details" text default '{}' not null, "created_at" bigint not null, "actor_kind" text default 'system' not null, "auth_method" text, "ip_address" text, "user_agent" text)`,
  `CREATE INDEX "audit_log_org_created" on "audit_log" ("organization_id", "created_at")`,
  `CREATE TABLE "broadcasts" ("id" text primary key, "project_id" text not null, "mode" text not null, "api_key_id" text, "audience_id" text not null, "name" text not null, "from_header" text not null, "reply_to" text, "subject" text, "html" text, "text" text, "template" text, "template_id" text, "template_version" bigint, "tags" text default '{}' not null, "status" text not null check (status in ('draft', 'scheduled', 'sending', 'sent', 'cancelled', 'failed')), "send_at" bigint, "started_at" bigint, "finished_at" bigint, "cancelled_at" bigint, "cursor" text, "recipients" bigint, "queued" bigint default 0 not null, "suppressed" bigint default 0 not null, "last_error" text, "created_at" bigint not null, "updated_at" bigint not null)`,
  `CREATE INDEX "broadcasts_project" on "broadcasts" ("project_id", "mode", "id")`,
  `CREATE INDEX "broadcasts_runnable" on "broadcasts" ("status", "send_at") where status in ('scheduled', 'sending')`,
  `CREATE TABLE "broadcast_messages" ("broadcast_id" text not null references "broadcasts" ("id") on delete cascade, "contact_id" text not null, "message_id" text not null, "created_at" bigint not null, constraint "broadcast_messages_pk" primary key ("broadcast_id", "contact_id"))`,
  `CREATE INDEX "broadcast_messages_message" on "broadcast_messages" ("message_id")`,
  `CREATE TABLE "contacts" ("id" text primary key, "audience_id" text not null references "audiences" ("id") on delete cascade, "project_id" text not null, "email" text not null, "first_name" text, "last_name" text, "metadata" text default '{}' not null, "status" text not null check (status in ('subscribed', 'unsubscribed')), "consent_source" text not null, "consent_at" bigint not null, "unsubscribed_at" bigint, "created_at" bigint not null, "updated_at" bigint not null, constraint "contacts_audience_email" unique ("audience_id", "email"))`,
  `CREATE INDEX "contacts_audience_status" on "contacts" ("audience_id", "status", "id")`,
  `CREATE TABLE "contact_consents" ("id" bigint generated by default as identity primary key, "contact_id" text not null references "contacts" ("id") on delete cascade, "kind" text not null check (kind in ('subscribed', 'unsubscribed')), "source" text not null, "at" bigint not null, "broadcast_id" text, "detail" text, "recorded_at" bigint not null)`,
  `CREATE INDEX "contact_consents_broadcast" on "contact_consents" ("broadcast_id") where "broadcast_id" is not null`,
  `CREATE INDEX "contact_consents_contact" on "contact_consents" ("contact_id", "id")`,
  `CREATE TABLE "dedicated_ip_assignments" ("project_id" text primary key references "projects" ("id") on delete cascade, "ip" text not null unique, "request_id" text not null, "plan_name" text not null, "daily_limits" text not null, "started_at" bigint not null, "created_at" bigint not null)`,
  `CREATE TABLE "dedicated_ip_requests" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "monthly_volume" bigint not null, "reason" text not null, "status" text not null check (status in ('pending', 'approved', 'declined')), "review_note" text, "reviewed_by" text, "reviewed_at" bigint, "ip" text, "plan" text, "created_at" bigint not null)`,
  `CREATE UNIQUE INDEX dedicated_ip_requests_pending on dedicated_ip_requests (project_id) where status = 'pending'`,
  `CREATE INDEX "dedicated_ip_requests_project" on "dedicated_ip_requests" ("project_id", "id")`,
  `CREATE TABLE "dedicated_ip_usage" ("ip" text not null, "day" bigint not null, "lane" text not null, "sent" bigint not null, constraint "dedicated_ip_usage_pk" primary key ("ip", "day", "lane"))`,
  `CREATE TABLE "delivery_attempts" ("id" bigint generated by default as identity primary key, "job_id" text not null, "message_id" text not null, "lane" text, "mx_host" text, "tls" bigint default 0 not null, "outcome" text not null, "smtp_code" bigint, "smtp_reply" text, "started_at" bigint not null, "duration_ms" bigint not null)`,
  `CREATE INDEX "delivery_attempts_message" on "delivery_attempts" ("message_id")`,
  `CREATE INDEX "delivery_attempts_started" on "delivery_attempts" ("started_at")`,
  `CREATE TABLE "messages" ("id" text primary key, "rowid" bigint generated by default as identity unique, "project_id" text not null references "projects" ("id") on delete cascade, "api_key_id" text, "mode" text not null check (mode in ('live', 'test')), "traffic" text default 'transactional' not null, "status" text not null, "from_header" text not null, "from_email" text not null, "from_domain" text not null, "reply_to" text, "subject" text not null, "headers" text default '{}' not null, "tags" text default '{}' not null, "template_id" text, "template_version" bigint, "variables" text, "send_at" bigint, "created_at" bigint not null, "updated_at" bigint not null, "track_opens" bigint, "track_clicks" bigint)`,
  `CREATE INDEX "messages_project_mode" on "messages" ("project_id", "mode", "id")`,
  `CREATE INDEX "messages_scheduled" on "messages" ("send_at") where "status" = 'scheduled'`,
  `CREATE TABLE "delivery_jobs" ("id" text primary key, "message_id" text not null references "messages" ("id") on delete cascade, "project_id" text not null, "domain" text not null, "traffic" text default 'transactional' not null, "mode" text not null, "state" text not null check (state in ('scheduled', 'queued', 'done', 'cancelled')), "lane" text, "due_at" bigint not null, "locked_until" bigint, "lease" text, "attempts" bigint default 0 not null, "last_error" text, "created_at" bigint not null, "updated_at" bigint not null)`,
  `CREATE INDEX "delivery_jobs_due" on "delivery_jobs" ("traffic", "due_at") where "state" = 'queued'`,
  `CREATE INDEX "delivery_jobs_lane_due" on "delivery_jobs" ("traffic", "lane", "due_at") where "state" = 'queued'`,
  `CREATE INDEX "delivery_jobs_message" on "delivery_jobs" ("message_id")`,
  `CREATE TABLE "delivery_soft_bounces" ("project_id" text not null, "email" text not null, "count" bigint not null, "last_at" bigint not null, constraint "delivery_soft_bounces_pk" primary key ("project_id", "email"))`,
  `CREATE TABLE "domains" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "name" text not null, "region" text not null, "status" text not null check (status in ('pending', 'verified', 'failed')), "checks" text default '{}' not null, "created_at" bigint not null, "updated_at" bigint not null, "verified_at" bigint, "last_checked_at" bigint)`,
  `CREATE UNIQUE INDEX "domains_project_name" on "domains" ("project_id", "name")`,
  `CREATE TABLE "domain_dkim_keys" ("domain_id" text not null references "domains" ("id") on delete cascade, "algorithm" text not null check (algorithm in ('rsa-sha256', 'ed25519-sha256')), "selector" text not null, "public_key" text not null, "private_key_sealed" text not null, "created_at" bigint not null, constraint "domain_dkim_keys_pk" primary key ("domain_id", "algorithm"))`,
  `CREATE TABLE "event_cursors" ("consumer" text primary key, "last_event_id" text not null, "updated_at" bigint not null)`,
  `CREATE TABLE "events" ("id" text primary key, "seq" bigint generated by default as identity unique, "tx" xid8 default pg_current_xact_id() not null, "project_id" text not null, "type" text not null, "message_id" text, "recipient" text, "data" text not null, "created_at" bigint not null)`,
  `CREATE INDEX "events_message" on "events" ("message_id")`,
  `CREATE INDEX "events_project_created" on "events" ("project_id", "created_at")`,
  `CREATE TABLE "idempotency_keys" ("project_id" text not null, "mode" text not null check (mode in ('live', 'test')), "key" text not null, "message_id" text not null, "created_at" bigint not null, constraint "idempotency_keys_pk" primary key ("project_id", "mode", "key"))`,
  `CREATE INDEX "idempotency_keys_created" on "idempotency_keys" ("created_at")`,
  `CREATE TABLE "inbound_messages" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "receipt_id" text not null, "route_id" text, "thread_id" text not null, "mail_from" text not null, "rcpt_to" text not null, "from_header" text not null, "from_email" text not null, "to" text not null, "cc" text not null, "reply_to" text not null, "subject" text not null, "text" text, "html" text, "headers" text not null, "date" bigint, "message_id_header" text, "in_reply_to" text, "references" text not null, "auth" text not null, "remote_ip" text not null, "helo" text not null, "tls" bigint not null, "size_bytes" bigint not null, "created_at" bigint not null, "parse_error" text)`,
  `CREATE INDEX "inbound_messages_project" on "inbound_messages" ("project_id", "id")`,
  `CREATE INDEX "inbound_messages_thread" on "inbound_messages" ("thread_id", "id")`,
  `CREATE TABLE "inbound_attachments" ("id" text primary key, "project_id" text not null, "message_id" text not null references "inbound_messages" ("id") on delete cascade, "position" bigint not null, "filename" text, "content_type" text not null, "content_id" text, "disposition" text not null, "size_bytes" bigint not null, "sha256" text not null, "scan_state" text not null check (scan_state in ('pending', 'clean', 'infected', 'error')), "scan_signature" text, "scan_detail" text, "scan_attempts" bigint default 0 not null, "scan_after" bigint default 0 not null, "scanned_at" bigint, "content" bytea not null, "created_at" bigint not null)`,
  `CREATE INDEX "inbound_attachments_message" on "inbound_attachments" ("message_id")`,
  `CREATE INDEX "inbound_attachments_pending" on "inbound_attachments" ("scan_after", "id") where "scan_state" = 'pending'`,
  `CREATE TABLE "inbound_receipts" ("id" text primary key, "kind" text not null, "mail_from" text not null, "rcpt_to" text not null, "remote_ip" text not null, "size_bytes" bigint not null, "outcome" text default '{}' not null, "received_at" bigint not null, "processed_at" bigint not null)`,
  `CREATE TABLE "inbound_replies" ("project_id" text not null, "mode" text not null check (mode in ('live', 'test')), "idempotency_key" text not null, "inbound_id" text not null, "message_id" text not null, "created_at" bigint not null, constraint "inbound_replies_pk" primary key ("project_id", "mode", "idempotency_key"))`,
  `CREATE TABLE "inbound_routes" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "domain_id" text not null, "domain" text not null, "local_part" text default '' not null, "created_at" bigint not null)`,
  `CREATE UNIQUE INDEX "inbound_routes_address" on "inbound_routes" ("domain", "local_part")`,
  `CREATE INDEX "inbound_routes_project" on "inbound_routes" ("project_id", "id")`,
  `CREATE TABLE "inbound_threads" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "subject" text not null, "created_at" bigint not null, "last_message_at" bigint not null)`,
  `CREATE TABLE "users" ("id" text primary key, "email" text not null unique, "name" text, "password_hash" text, "totp_secret_sealed" text, "created_at" bigint not null, "totp_pending_sealed" text, "totp_last_step" bigint, "totp_enabled_at" bigint, "password_updated_at" bigint)`,
  `CREATE TABLE "login_codes" ("user_id" text primary key references "users" ("id") on delete cascade, "code_hash" text not null, "attempts" bigint default 0 not null, "expires_at" bigint not null, "created_at" bigint not null)`,
  `CREATE TABLE "message_bodies" ("message_id" text primary key references "messages" ("id") on delete cascade, "html" text, "text" text)`,
  `CREATE TABLE message_history (message_rowid bigint primary key, id text not null, project_id text not null, mode text not null, status text not null, from_email text not null, subject text not null, recipient text not null)`,
  `CREATE INDEX message_history_created on message_history (project_id, mode, id)`,
  `CREATE INDEX message_history_recipient on message_history (project_id, mode, recipient, id)`,
  `CREATE INDEX message_history_sender on message_history (project_id, mode, from_email, id)`,
  `CREATE INDEX message_history_status on message_history (project_id, mode, status, id)`,
  `CREATE INDEX message_history_subject on message_history (project_id, mode, subject, id)`,
  `CREATE TABLE message_history_counts (project_id text not null, mode text not null, status text not null, n bigint not null, primary key (project_id, mode, status))`,
  `CREATE TABLE "message_raw" ("message_id" text primary key references "messages" ("id") on delete cascade, "signing" text not null, "size" bigint not null, "bytes" bytea not null, "created_at" bigint not null)`,
  `CREATE TABLE "message_recipients" ("id" text primary key, "rowid" bigint generated by default as identity unique, "message_id" text not null references "messages" ("id") on delete cascade, "project_id" text not null, "kind" text not null check (kind in ('to', 'cc', 'bcc')), "email" text not null, "display" text not null, "domain" text not null, "status" text not null, "attempts" bigint default 0 not null, "smtp_code" bigint, "smtp_reply" text, "bounce_category" text, "delivered_at" bigint, "updated_at" bigint not null)`,
  `CREATE INDEX "message_recipients_message" on "message_recipients" ("message_id")`,
  `CREATE INDEX "message_recipients_project_email" on "message_recipients" ("project_id", "email")`,
  `CREATE TABLE "mta_sts_policies" ("domain" text primary key, "policy_id" text not null, "mode" text not null check (mode in ('enforce', 'testing', 'none')), "mx" text not null, "max_age" bigint not null, "fetched_at" bigint not null, "expires_at" bigint not null)`,
  `CREATE TABLE "organization_members" ("id" text primary key, "organization_id" text not null references "organizations" ("id") on delete cascade, "user_id" text not null references "users" ("id") on delete cascade, "role" text not null check (role in ('owner', 'admin', 'developer', 'analyst', 'billing')), "created_at" bigint not null, constraint "organization_members_org_user" unique ("organization_id", "user_id"))`,
  `CREATE TABLE "recovery_codes" ("user_id" text not null references "users" ("id") on delete cascade, "code_hash" text not null, "used_at" bigint, "created_at" bigint not null, constraint "recovery_codes_pk" primary key ("user_id", "code_hash"))`,
  `CREATE TABLE "reputation_connections" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "provider" text not null check (provider in ('provider_a_postmaster', 'provider_b_snds')), "credential_sealed" text not null, "created_by" text, "last_synced_at" bigint, "last_error" text, "last_error_at" bigint, "created_at" bigint not null)`,
  `CREATE INDEX "reputation_connections_project" on "reputation_connections" ("project_id", "id")`,
  `CREATE TABLE "reputation_hourly" ("project_id" text not null, "kind" text not null, "name" text not null, "hour" bigint not null, "delivered" bigint default 0 not null, "bounced" bigint default 0 not null, "hard_bounced" bigint default 0 not null, "deferred" bigint default 0 not null, "complained" bigint default 0 not null, "blocked" bigint default 0 not null, "last_block_at" bigint, "last_block_category" text, "last_block_response" text, "last_block_mx" text, constraint "reputation_hourly_pk" primary key ("project_id", "kind", "name", "hour"))`,
  `CREATE INDEX "reputation_hourly_hour" on "reputation_hourly" ("hour")`,
  `CREATE TABLE "reputation_provider_data" ("connection_id" text not null references "reputation_connections" ("id") on delete cascade, "kind" text not null, "subject" text not null, "day" text not null, "data" text not null, "fetched_at" bigint not null, constraint "reputation_provider_data_pk" primary key ("connection_id", "kind", "subject", "day"))`,
  `CREATE TABLE "sessions" ("id" text primary key, "token_hash" text not null unique, "user_id" text not null references "users" ("id") on delete cascade, "organization_id" text not null references "organizations" ("id") on delete cascade, "project_id" text not null, "auth_method" text not null check (auth_method in ('email_code', 'password')), "ip_address" text, "user_agent" text, "created_at" bigint not null, "last_seen_at" bigint not null, "expires_at" bigint not null, "revoked_at" bigint)`,
  `CREATE INDEX "sessions_user" on "sessions" ("user_id", "organization_id")`,
  `CREATE TABLE "status_incidents" ("id" text primary key, "kind" text not null check (kind in ('incident', 'maintenance')), "title" text not null, "impact" text not null, "state" text not null, "components" text not null, "origin" text not null check (origin in ('operator', 'automatic')), "auto_component" text, "starts_at" bigint, "ends_at" bigint, "created_at" bigint not null, "updated_at" bigint not null, "closed_at" bigint)`,
  `CREATE INDEX "status_incidents_closed" on "status_incidents" ("closed_at")`,
  `CREATE UNIQUE INDEX "status_incidents_open_auto" on "status_incidents" ("auto_component") where "closed_at" is null and "auto_component" is not null`,
  `CREATE TABLE "status_incident_updates" ("seq" bigint generated by default as identity primary key, "id" text not null unique, "incident_id" text not null references "status_incidents" ("id") on delete cascade, "state" text not null, "impact" text not null, "message" text not null, "created_at" bigint not null, "notified_at" bigint)`,
  `CREATE INDEX "status_incident_updates_incident" on "status_incident_updates" ("incident_id", "seq")`,
  `CREATE INDEX "status_incident_updates_unnotified" on "status_incident_updates" ("seq") where "notified_at" is null`,
  `CREATE TABLE "status_subscriptions" ("id" text primary key, "channel" text not null check (channel in ('email', 'webhook')), "destination" text not null, "destination_key" text not null, "state" text not null check (state in ('pending', 'verified', 'removed')), "verify_token_hash" text unique, "verify_expires_at" bigint, "unsubscribe_nonce" text not null, "unsubscribe_token_hash" text unique, "secret_sealed" text, "challenge_due_at" bigint, "challenge_attempts" bigint default 0 not null, "challenge_locked_until" bigint, "last_error" text, "created_at" bigint not null, "updated_at" bigint not null, "verified_at" bigint, "removed_at" bigint)`,
  `CREATE INDEX "status_subscriptions_challenge" on "status_subscriptions" ("challenge_due_at") where "challenge_due_at" is not null`,
  `CREATE UNIQUE INDEX "status_subscriptions_destination" on "status_subscriptions" ("channel", "destination_key")`,
  `CREATE TABLE "status_notifications" ("id" text primary key, "update_id" text not null, "subscription_id" text not null references "status_subscriptions" ("id") on delete cascade, "state" text not null check (state in ('pending', 'sent', 'failed', 'dropped')), "attempts" bigint default 0 not null, "due_at" bigint not null, "locked_until" bigint, "last_error" text, "response_status" bigint, "message_id" text, "sent_at" bigint, "created_at" bigint not null)`,
  `CREATE INDEX "status_notifications_due" on "status_notifications" ("due_at") where "state" = 'pending'`,
  `CREATE UNIQUE INDEX "status_notifications_once" on "status_notifications" ("update_id", "subscription_id")`,
  `CREATE INDEX "status_notifications_subscription" on "status_notifications" ("subscription_id", "state", "id")`,
  `CREATE TABLE "suppressions" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "email" text not null, "reason" text not null check (reason in ('hard_bounce', 'spam_complaint', 'unsubscribe', 'manual_block', 'repeated_soft_bounce', 'abuse_decision', 'invalid_address')), "source" text not null, "message_id" text, "created_at" bigint not null, "updated_at" bigint not null, "mode" text default 'live' not null check (mode in ('live', 'test')))`,
  `CREATE INDEX "suppressions_project_id" on "suppressions" ("project_id", "id")`,
  `CREATE UNIQUE INDEX "suppressions_project_mode_email" on "suppressions" ("project_id", "mode", "email")`,
  `CREATE TABLE "templates" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "slug" text, "latest_version" bigint not null, "published_version" bigint, "created_at" bigint not null, "updated_at" bigint not null)`,
  `CREATE INDEX "templates_project_id" on "templates" ("project_id", "id")`,
  `CREATE UNIQUE INDEX "templates_project_slug" on "templates" ("project_id", "slug")`,
  `CREATE TABLE "template_versions" ("id" text primary key, "template_id" text not null references "templates" ("id") on delete cascade, "version" bigint not null, "name" text not null, "subject" text not null, "html_body" text, "text_body" text, "variables" text not null, "created_at" bigint not null, "published_at" bigint)`,
  `CREATE UNIQUE INDEX "template_versions_template_version" on "template_versions" ("template_id", "version")`,
  `CREATE TABLE "thread_message_ids" ("project_id" text not null, "message_id_header" text not null, "thread_id" text not null references "inbound_threads" ("id") on delete cascade, "direction" text not null check (direction in ('inbound', 'outbound')), "ref_id" text not null, "at" bigint not null, constraint "thread_message_ids_pk" primary key ("project_id", "message_id_header"))`,
  `CREATE INDEX "thread_message_ids_thread" on "thread_message_ids" ("thread_id", "at")`,
  `CREATE TABLE "tracking_hits" ("id" bigint generated by default as identity primary key, "project_id" text not null, "message_id" text not null, "recipient" text, "kind" text not null check (kind in ('open', 'click')), "link_url" text, "link_index" bigint, "at" bigint not null, "method" text not null, "ip_prefix" text, "agent_class" text not null, "machine" bigint not null, "machine_reason" text, "proxy" text, "event_id" text)`,
  `CREATE INDEX "tracking_hits_at" on "tracking_hits" ("at")`,
  `CREATE INDEX "tracking_hits_message" on "tracking_hits" ("message_id", "at")`,
  `CREATE TABLE "tracking_settings" ("project_id" text primary key references "projects" ("id") on delete cascade, "opens_enabled" bigint not null, "clicks_enabled" bigint not null, "retention_days" bigint not null check (retention_days between 1 and 365), "custom_domain" text, "dns_status" text default 'none' not null check (dns_status in ('none', 'pending', 'verified', 'failed')), "dns_reason" text, "dns_checked_at" bigint, "updated_at" bigint not null)`,
  `CREATE TABLE "webhook_endpoints" ("id" text primary key, "project_id" text not null references "projects" ("id") on delete cascade, "url" text not null, "description" text, "events" text not null, "status" text not null check (status in ('enabled', 'disabled')), "disabled_reason" text, "secret_sealed" text not null, "previous_secret_sealed" text, "previous_secret_expires_at" bigint, "failing_since" bigint, "created_at" bigint not null, "updated_at" bigint not null, "last_failed_at" bigint, "mode" text default 'live' not null check (mode in ('live', 'test')))`,
  `CREATE INDEX "webhook_endpoints_project" on "webhook_endpoints" ("project_id", "id")`,
  `CREATE TABLE "webhook_messages" ("id" text primary key, "endpoint_id" text not null references "webhook_endpoints" ("id") on delete cascade, "project_id" text not null, "event_id" text not null, "event_type" text not null, "body" text not null, "created_at" bigint not null)`,
  `CREATE UNIQUE INDEX "webhook_messages_endpoint_event" on "webhook_messages" ("endpoint_id", "event_id")`,
  `CREATE TABLE "webhook_attempts" ("id" text primary key, "message_id" text not null references "webhook_messages" ("id") on delete cascade, "endpoint_id" text not null, "attempt" bigint not null, "trigger" text not null check (trigger in ('event', 'retry', 'replay')), "replay_of" text, "previous_attempt_id" text, "state" text not null check (state in ('pending', 'succeeded', 'failed')), "due_at" bigint not null, "locked_until" bigint, "lease" text, "url" text, "requested_at" bigint, "duration_ms" bigint, "response_status" bigint, "response_headers" text, "response_body" text, "error" text, "created_at" bigint not null)`,
  `CREATE INDEX "webhook_attempts_due" on "webhook_attempts" ("endpoint_id", "due_at") where "state" = 'pending'`,
  `CREATE INDEX "webhook_attempts_endpoint" on "webhook_attempts" ("endpoint_id", "id")`,
  `CREATE INDEX "webhook_attempts_message" on "webhook_attempts" ("message_id")`,
  `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
  `CREATE TABLE message_search (rowid bigint primary key, body text not null)`,
  `CREATE INDEX message_search_body on message_search using gin (body gin_trgm_ops)`,
  `CREATE FUNCTION message_raw_final() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     DELETE FROM message_raw WHERE message_id = NEW.id;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER message_raw_final AFTER UPDATE OF status ON messages FOR EACH ROW
   WHEN (NEW.status IN ('delivered', 'partially_delivered', 'bounced', 'failed', 'cancelled', 'rejected', 'suppressed'))
   EXECUTE FUNCTION message_raw_final()`,
  `CREATE FUNCTION message_history_status() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF EXISTS (SELECT 1 FROM message_history WHERE message_rowid = NEW.rowid) THEN
       UPDATE message_history SET status = NEW.status WHERE message_rowid = NEW.rowid;
       INSERT INTO message_history_counts VALUES (NEW.project_id, NEW.mode, NEW.status, 0) ON CONFLICT DO NOTHING;
       UPDATE message_history_counts SET n = n + 1
         WHERE project_id = NEW.project_id AND mode = NEW.mode AND status = NEW.status;
       UPDATE message_history_counts SET n = n - 1
         WHERE project_id = OLD.project_id AND mode = OLD.mode AND status = OLD.status;
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER message_history_status AFTER UPDATE OF status ON messages FOR EACH ROW
   WHEN (NEW.status <> OLD.status) EXECUTE FUNCTION message_history_status()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
