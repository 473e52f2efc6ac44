/**
 * One verification of one sending domain: run the DNS checks, decide the status, save both with
 * a `domain.updated` event in one transaction when anything changed, together with the activation
 * of a sandbox project once a domain is verified. Used by `POST /v1/domains/{id}/verify` and the re-check.
 */
import type { EventService } from '../events/service.js';
import type { Config } from '../platform/config/schema.js';
import type { DomainStatus } from '../platform/db/tables.js';
import type { DnsResolver } from '../platform/dns/resolver.js';
import { notFound } from '../platform/http/errors.js';
import type { Logger } from '../platform/log.js';
import type { ProjectService } from '../projects/service.js';
import { type CheckOutcome, runChecks } from './checks.js';
import { identityIssues } from '../platform/config/public-identity.js';
import { type ExpectedRecord, expectedRecords, requiredRecordWithheld } from './records.js';
import type { DomainRecord } from './schemas.js';
import type { DomainRow, DomainStore } from './store.js';
import { domainView, eventData, parseChecks, recordStatus, type StoredChecks } from './views.js';

export interface VerifierDeps {
  readonly store: DomainStore;
  readonly config: Config;
  readonly resolver: DnsResolver;
  readonly events: EventService;
  readonly projects: ProjectService;
  readonly log: Logger;
}

/**
 * Verified when every required record passes; only-temporary failures leave the status as it was.
 * While the config withholds a required record (SPF naming localhost), the domain fails: it
 * cannot be published right whatever its DNS holds.
 */
export function decideStatus(
  previous: DomainStatus,
  records: readonly ExpectedRecord[],
  outcomes: Map<string, CheckOutcome>,
  requiredWithheld = false,
): DomainStatus {
  if (requiredWithheld) return 'failed';
  const required = records.filter((record) => record.required).map((record) => outcomes.get(record.key));
  if (required.every((outcome) => outcome?.status === 'verified')) return 'verified';
  if (required.some((outcome) => outcome?.status !== 'verified' && !outcome?.temporary)) return 'failed';
  return previous;
}

/** `work`, or its abandonment as soon as `signal` aborts (a rejection with the signal's reason). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const abandon = () => reject(signal.reason);
    signal.addEventListener('abort', abandon, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abandon));
  });
}

export function createVerifier(deps: VerifierDeps) {
  const { store, config, resolver, events, projects, log } = deps;
  const issues = identityIssues(config);
  const blocked = requiredRecordWithheld(config);
  /**
   * Runs the DNS checks of one domain, saves them, and tells the world what changed. Once `signal`
   * aborts (the re-check stopping), the checks are abandoned and nothing is saved.
   */
  return async (row: DomainRow, actor: string, signal?: AbortSignal): Promise<DomainRecord> => {
    const keys = (await store.publicKeysByDomain([row.id])).get(row.id) ?? [];
    const records = expectedRecords(config, row.name, keys);
    const outcomes = await unlessAborted(runChecks(resolver, config, records), signal);
    signal?.throwIfAborted();
    const at = Date.now();
    const previous = parseChecks(row);
    const checks: Record<string, StoredChecks[string]> = {};
    for (const [key, outcome] of outcomes) checks[key] = { ...outcome, checked_at: at };
    const status = decideStatus(row.status, records, outcomes, blocked);
    const changed =
      status !== row.status ||
      records.some((record) => recordStatus(previous, record.key) !== recordStatus(checks, record.key));
    const updated: DomainRow = {
      ...row,
      status,
      checks: JSON.stringify(checks),
      last_checked_at: at,
      updated_at: changed ? at : row.updated_at,
      verified_at:
        status === 'verified' && row.status !== 'verified'
          ? at
          : status === 'verified'
            ? row.verified_at
            : null,
    };
    const view = domainView(updated, records, issues);
    const stillThere = await store.transaction(async (trx) => {
      if (!(await store.find(row.project_id, row.id, trx))) return false;
      await store.saveCheck(trx, row.id, {
        status: updated.status,
        checks: updated.checks,
        last_checked_at: at,
        updated_at: updated.updated_at,
        verified_at: updated.verified_at,
      });
      if (changed) {
        await events.append(trx, {
          projectId: row.project_id,
          type: 'domain.updated',
          data: eventData(view, row.status),
          at,
        });
      }
      // Only on the transition: an operator who puts a project back in the sandbox is not overruled
      // daily. In this transaction, so a domain is never verified without its project activated.
      if (status === 'verified' && row.status !== 'verified')
        await projects.activateFromSandbox(row.project_id, actor, trx);
      return true;
    });
    if (!stillThere) throw notFound(`Domain ${row.id}`);
    if (changed) events.notify();
    if (status !== row.status)
      log.info({ domain: row.name, from: row.status, to: status, actor }, 'domain status changed');
    return view;
  };
}
