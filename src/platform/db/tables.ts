/**
 * The database's shape in one place: `Database` names every table and its row type. The row types
 * live beside the capability they serve in ./tables/ and are re-exported here, so importers keep
 * using this module. Times are integer milliseconds since the epoch (UTC); they become ISO 8601
 * strings only at the HTTP edge. JSON columns hold text.
 */
import type {
  ApiKeysTable,
  AuditLogTable,
  LoginCodesTable,
  OrganizationMembersTable,
  OrganizationsTable,
  ProjectsTable,
  RecoveryCodesTable,
  SessionsTable,
  UsersTable,
} from './tables/accounts.js';
import type { AnalyticsDailyTable, AnalyticsRecipientsTable } from './tables/analytics.js';
import type { AudiencesTable, ContactConsentsTable, ContactsTable } from './tables/audiences.js';
import type {
  BroadcastMessagesTable,
  BroadcastRenderingsTable,
  BroadcastsTable,
} from './tables/broadcasts.js';
import type {
  DeliveryAttemptsTable,
  DeliveryJobsTable,
  DeliverySoftBouncesTable,
  MtaStsPoliciesTable,
} from './tables/delivery.js';
import type { DomainDkimKeysTable, DomainsTable } from './tables/domains.js';
import type { EventCursorsTable, EventsTable } from './tables/events.js';
import type {
  InboundAttachmentsTable,
  InboundMessagesTable,
  InboundRepliesTable,
  InboundReceiptsTable,
  InboundRoutesTable,
  InboundThreadsTable,
  ThreadMessageIdsTable,
} from './tables/inbound.js';
import type {
  IdempotencyKeysTable,
  MessageBodiesTable,
  MessageHistoryCountsTable,
  MessageHistoryTable,
  MessageRawTable,
  MessageRecipientsTable,
  MessagesTable,
} from './tables/messages.js';
import type {
  OAuthClientsTable,
  OAuthCodesTable,
  OAuthGrantsTable,
  OAuthTokensTable,
  SendApprovalPoliciesTable,
  SendApprovalsTable,
} from './tables/oauth.js';
import type {
  DedicatedIpAssignmentsTable,
  DedicatedIpRequestsTable,
  DedicatedIpUsageTable,
  ReputationConnectionsTable,
  ReputationHourlyTable,
  ReputationProviderDataTable,
} from './tables/reputation.js';
import type {
  StatusIncidentsTable,
  StatusIncidentUpdatesTable,
  StatusNotificationsTable,
  StatusSubscriptionsTable,
} from './tables/status.js';
import type { SuppressionsTable } from './tables/suppressions.js';
import type { TemplatesTable, TemplateVersionsTable } from './tables/templates.js';
import type { TrackingHitsTable, TrackingSettingsTable } from './tables/tracking.js';
import type { WebhookAttemptsTable, WebhookEndpointsTable, WebhookMessagesTable } from './tables/webhooks.js';

export type * from './tables/accounts.js';
export type * from './tables/analytics.js';
export type * from './tables/audiences.js';
export type * from './tables/broadcasts.js';
export type * from './tables/columns.js';
export type * from './tables/delivery.js';
export type * from './tables/domains.js';
export type * from './tables/events.js';
export type * from './tables/inbound.js';
export type * from './tables/messages.js';
export type * from './tables/oauth.js';
export type * from './tables/reputation.js';
export type * from './tables/status.js';
export type * from './tables/suppressions.js';
export type * from './tables/templates.js';
export type * from './tables/tracking.js';
export type * from './tables/webhooks.js';

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  organization_members: OrganizationMembersTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  sessions: SessionsTable;
  login_codes: LoginCodesTable;
  recovery_codes: RecoveryCodesTable;
  messages: MessagesTable;
  message_bodies: MessageBodiesTable;
  message_raw: MessageRawTable;
  message_recipients: MessageRecipientsTable;
  message_history: MessageHistoryTable;
  message_history_counts: MessageHistoryCountsTable;
  delivery_jobs: DeliveryJobsTable;
  events: EventsTable;
  mta_sts_policies: MtaStsPoliciesTable;
  delivery_soft_bounces: DeliverySoftBouncesTable;
  delivery_attempts: DeliveryAttemptsTable;
  event_cursors: EventCursorsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_attempts: WebhookAttemptsTable;
  analytics_recipients: AnalyticsRecipientsTable;
  analytics_daily: AnalyticsDailyTable;
  domains: DomainsTable;
  domain_dkim_keys: DomainDkimKeysTable;
  suppressions: SuppressionsTable;
  templates: TemplatesTable;
  template_versions: TemplateVersionsTable;
  idempotency_keys: IdempotencyKeysTable;
  inbound_routes: InboundRoutesTable;
  inbound_receipts: InboundReceiptsTable;
  inbound_threads: InboundThreadsTable;
  thread_message_ids: ThreadMessageIdsTable;
  inbound_messages: InboundMessagesTable;
  inbound_attachments: InboundAttachmentsTable;
  inbound_replies: InboundRepliesTable;
  tracking_settings: TrackingSettingsTable;
  tracking_hits: TrackingHitsTable;
  audiences: AudiencesTable;
  contacts: ContactsTable;
  contact_consents: ContactConsentsTable;
  broadcasts: BroadcastsTable;
  broadcast_messages: BroadcastMessagesTable;
  broadcast_renderings: BroadcastRenderingsTable;
  reputation_hourly: ReputationHourlyTable;
  dedicated_ip_requests: DedicatedIpRequestsTable;
  dedicated_ip_assignments: DedicatedIpAssignmentsTable;
  dedicated_ip_usage: DedicatedIpUsageTable;
  reputation_connections: ReputationConnectionsTable;
  reputation_provider_data: ReputationProviderDataTable;
  status_incidents: StatusIncidentsTable;
  status_incident_updates: StatusIncidentUpdatesTable;
  status_subscriptions: StatusSubscriptionsTable;
  status_notifications: StatusNotificationsTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_grants: OAuthGrantsTable;
  oauth_tokens: OAuthTokensTable;
  send_approvals: SendApprovalsTable;
  send_approval_policies: SendApprovalPoliciesTable;
}
