/**
 * The PostgreSQL migrations, in the order they run. The first is the schema as it stood when
 * PostgreSQL support came (not a replay of SQLite's history); each later SQLite migration that
 * adds or changes a table gets its counterpart here (CONTRIBUTING.md, "A table on both engines"),
 * which test/platform/schema-engines.test.ts checks. Each runs in its own transaction.
 */
import type { PosthornMigration } from '../migrate.js';
import * as schema from './0001-schema.js';
import * as oauthSendApprovals from './0002-oauth-send-approvals.js';
import * as eventsOrder from './0003-events-order.js';
import * as organizationTwoFactor from './0004-organization-two-factor.js';
import * as inboundProcessingError from './0005-inbound-processing-error.js';
import * as historyStatusPerStatement from './0006-history-status-per-statement.js';
import * as broadcastPreparation from './0007-broadcast-preparation.js';

export const migrations: Record<string, PosthornMigration> = {
  '0001-schema': schema,
  '0002-oauth-send-approvals': oauthSendApprovals,
  '0003-events-order': eventsOrder,
  '0004-organization-two-factor': organizationTwoFactor,
  '0005-inbound-processing-error': inboundProcessingError,
  '0006-history-status-per-statement': historyStatusPerStatement,
  '0007-broadcast-preparation': broadcastPreparation,
};
