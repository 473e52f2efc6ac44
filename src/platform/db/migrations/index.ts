/**
 * The ordered list of migrations. Each capability adds its own file here; names sort in the order
 * they must run. Migrations are never edited once released: add a new one instead. Each runs inside
 * its own transaction (../migrate.ts): it must not open one itself, and `PRAGMA foreign_keys` has no
 * effect there.
 */
import type { PosthornMigration } from '../migrate.js';
import * as foundation from './0001-foundation.js';
import * as messages from './0002-messages.js';
import * as domainsSuppressionsTemplates from './0003-domains-suppressions-templates.js';
import * as sendApi from './0004-send-api.js';
import * as delivery from './0005-delivery.js';
import * as webhooksAnalytics from './0006-webhooks-analytics.js';
import * as inbound from './0007-inbound.js';
import * as messageBodies from './0008-message-bodies.js';
import * as idempotencyMode from './0009-idempotency-mode.js';
import * as webhookFailureStreak from './0010-webhook-failure-streak.js';
import * as inboundReplyMode from './0011-inbound-reply-mode.js';
import * as analyticsMode from './0012-analytics-mode.js';
import * as inboundParseError from './0013-inbound-parse-error.js';
import * as messagesModeIndex from './0014-messages-mode-index.js';
import * as cancelledRecipients from './0015-cancelled-recipients.js';
import * as webhookEndpointMode from './0016-webhook-endpoint-mode.js';
import * as webhookAttemptsByMode from './0017-webhook-attempts-by-mode.js';
import * as organizationNameUnique from './0018-organization-name-unique.js';
import * as messageRaw from './0019-message-raw.js';
import * as suppressionMode from './0020-suppression-mode.js';
import * as systemOrganization from './0021a-system-organization.js';
import * as accounts from './0021b-accounts.js';
import * as messageHistory from './0021c-message-history.js';
import * as oauth from './0022-oauth.js';
import * as sendApprovals from './0022a-send-approvals.js';
import * as tracking from './0023-tracking.js';
import * as analyticsMachineEvents from './0023a-analytics-machine-events.js';
import * as audiencesBroadcasts from './0024-audiences-broadcasts.js';
import * as reputationCenter from './0025-reputation-center.js';
import * as dedicatedIps from './0025a-dedicated-ips.js';
import * as reputationConnections from './0025b-reputation-connections.js';
import * as status from './0026-status.js';
import * as organizationTwoFactor from './0027-organization-two-factor.js';
import * as inboundProcessingError from './0028-inbound-processing-error.js';
import * as broadcastPreparation from './0029-broadcast-preparation.js';

export const migrations: Record<string, PosthornMigration> = {
  '0001-foundation': foundation,
  '0002-messages': messages,
  '0005-delivery': delivery,
  '0004-send-api': sendApi,
  '0003-domains-suppressions-templates': domainsSuppressionsTemplates,
  '0006-webhooks-analytics': webhooksAnalytics,
  '0007-inbound': inbound,
  '0008-message-bodies': messageBodies,
  '0009-idempotency-mode': idempotencyMode,
  '0010-webhook-failure-streak': webhookFailureStreak,
  '0011-inbound-reply-mode': inboundReplyMode,
  '0012-analytics-mode': analyticsMode,
  '0013-inbound-parse-error': inboundParseError,
  '0014-messages-mode-index': messagesModeIndex,
  '0015-cancelled-recipients': cancelledRecipients,
  '0016-webhook-endpoint-mode': webhookEndpointMode,
  '0017-webhook-attempts-by-mode': webhookAttemptsByMode,
  '0018-organization-name-unique': organizationNameUnique,
  '0019-message-raw': messageRaw,
  '0020-suppression-mode': suppressionMode,
  '0021a-system-organization': systemOrganization,
  '0021b-accounts': accounts,
  '0021c-message-history': messageHistory,
  '0022-oauth': oauth,
  '0022a-send-approvals': sendApprovals,
  '0023-tracking': tracking,
  '0023a-analytics-machine-events': analyticsMachineEvents,
  '0024-audiences-broadcasts': audiencesBroadcasts,
  '0025-reputation-center': reputationCenter,
  '0025a-dedicated-ips': dedicatedIps,
  '0025b-reputation-connections': reputationConnections,
  '0026-status': status,
  '0027-organization-two-factor': organizationTwoFactor,
  '0028-inbound-processing-error': inboundProcessingError,
  '0029-broadcast-preparation': broadcastPreparation,
};
