/**
 * Suppressions written beside a delivery outcome (a hard bounce, repeated soft bounces, a
 * complaint), in the caller's transaction but in a savepoint of their own: one that fails (an
 * address the list cannot hold, a constraint) is rolled back alone and logged, and the outcome and
 * its events still commit. Without this a single bad address undid a whole job's outcome, and the
 * job came back on every lease expiry to be sent to everyone again.
 *
 * @example
 * const suppress = suppressBesideOutcome({ sqlite, log, suppressions });
 * const added = await suppress(trx, { projectId, email, reason: 'hard_bounce', messageId });
 */
import type SQLite from 'better-sqlite3';
import type { Db } from '../platform/db/database.js';
import { savepointIn } from '../platform/db/savepoints.js';
import type { Logger } from '../platform/log.js';
import type { SuppressionInput } from './service.js';

export type SuppressBesideOutcome = (
  trx: Db,
  input: SuppressionInput,
  logContext?: Readonly<Record<string, unknown>>,
) => Promise<boolean>;

export function suppressBesideOutcome(deps: {
  /** SQLite: the raw handle the caller's transaction runs on (under Kysely's connection lock). */
  readonly sqlite: SQLite.Database;
  readonly log: Logger;
  readonly suppressions: { addWithin(trx: Db, input: SuppressionInput): Promise<unknown> };
}): SuppressBesideOutcome {
  return async (trx, input, logContext = {}) => {
    const added = await savepointIn(trx, deps.sqlite, 'suppression', () =>
      deps.suppressions.addWithin(trx, input),
    );
    if (!added.ok) {
      // The address itself stays out of the log; the message and reason identify the case.
      deps.log.error(
        { err: added.error, message_id: input.messageId ?? null, reason: input.reason, ...logContext },
        'an address could not be suppressed; its outcome is recorded without it',
      );
    }
    return added.ok;
  };
}
