/**
 * Sending domains: create (with a DKIM key pair sealed at rest), list, get, delete, verify through
 * the configured resolver, and the daily re-check. Other capabilities call `findVerifiedByName`
 * (the send API's sender check), `signingKeys` and `bounceHost` (delivery). Private keys leave
 * this module only through `signingKeys`, unsealed in memory, and never in a response or a log.
 */
import type { EventService } from '../events/service.js';
import { dkimKeyOptions, generateDkimKeys } from '../dkim/keys.js';
import { sealDkimKey } from '../dkim/key-seal.js';
import { identityIssues } from '../platform/config/public-identity.js';
import type { Config } from '../platform/config/schema.js';
import type { Db } from '../platform/db/database.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';
import type { DnsResolver } from '../platform/dns/resolver.js';
import { badRequest, conflict, notFound } from '../platform/http/errors.js';
import { newId } from '../platform/ids.js';
import type { Logger } from '../platform/log.js';
import type { ProjectService } from '../projects/service.js';
import { runChecks } from './checks.js';
import { createDomainLookups } from './lookups.js';
import type { Notifications } from '../platform/db/notifications.js';
import { parseDomainName } from './name.js';
import { bounceHost, expectedRecords, maxDomainLength, type PublicDkimKey } from './records.js';
import type { DnsRecordView, DomainRecord } from './schemas.js';
import type { DkimKeyRow, DomainRow, DomainStore } from './store.js';
import { trackingDns } from './tracking.js';
import { createVerifier } from './verification.js';
import { domainView, eventData, parseChecks, recordStatus, recordView } from './views.js';

export type { SigningKeys, VerifiedDomain } from './lookups.js';

/** A domain as `inspectAll` found it in DNS just now. */
export interface InspectedDomain {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly records: ReadonlyArray<DnsRecordView & { readonly temporary: boolean }>;
}

export interface DomainServiceDeps {
  readonly store: DomainStore;
  readonly config: Config;
  readonly masterKey: Buffer;
  readonly resolver: DnsResolver;
  readonly events: EventService;
  readonly projects: ProjectService;
  readonly log: Logger;
  /** Tells every node sharing the store that a domain's keys are gone (its cached keys are dropped). */
  readonly notifications?: Notifications;
}

const RECHECK_PAGE = 100;

function normalizedName(input: string, config: Config): string {
  const parsed = parseDomainName(input, maxDomainLength(config));
  if (!parsed.ok)
    throw badRequest(`name: "${input}" ${parsed.reason}.`, [{ path: 'name', message: parsed.reason }]);
  return parsed.name;
}

export function createDomainService(deps: DomainServiceDeps) {
  const { store, config, masterKey, resolver, events, projects } = deps;
  const log = deps.log.child({ capability: 'domains' });

  const recordsOf = (row: DomainRow, keys: readonly PublicDkimKey[] | undefined) =>
    expectedRecords(config, row.name, keys ?? []);
  // The config never changes while the process runs.
  const issues = identityIssues(config);

  const views = async (rows: readonly DomainRow[]): Promise<DomainRecord[]> => {
    const keys = await store.publicKeysByDomain(rows.map((row) => row.id));
    return rows.map((row) => domainView(row, recordsOf(row, keys.get(row.id)), issues));
  };

  const load = async (projectId: string, id: string): Promise<DomainRow> => {
    const row = await store.find(projectId, id);
    if (!row) throw notFound(`Domain ${id}`);
    return row;
  };

  const check = createVerifier({ store, config, resolver, events, projects, log });
  const lookups = createDomainLookups(store, masterKey, deps.notifications);

  return {
    async create(
      projectId: string,
      input: { name: string; region: string },
      actor = 'api',
    ): Promise<DomainRecord> {
      const name = normalizedName(input.name, config);
      const duplicate = () => conflict(`name: ${name} is already a domain of this project.`);
      if (await store.findByName(projectId, name)) throw duplicate();
      const at = Date.now();
      const id = newId('dom', at);
      const generated = await generateDkimKeys(name, dkimKeyOptions(config));
      const keys: DkimKeyRow[] = [generated.rsa, ...(generated.ed25519 ? [generated.ed25519] : [])].map(
        (key) => ({
          domain_id: id,
          algorithm: key.algorithm,
          selector: key.selector,
          public_key: key.publicKey,
          private_key_sealed: sealDkimKey(masterKey, key.privateKeyPem, id),
          created_at: at,
        }),
      );
      const row: DomainRow = {
        id,
        project_id: projectId,
        name,
        region: input.region,
        status: 'pending',
        checks: '{}',
        created_at: at,
        updated_at: at,
        verified_at: null,
        last_checked_at: null,
      };
      const view = domainView(
        row,
        recordsOf(
          row,
          keys.map((key) => ({
            algorithm: key.algorithm,
            selector: key.selector,
            publicKey: key.public_key,
          })),
        ),
        issues,
      );
      try {
        await store.transaction(async (trx) => {
          await store.insert(trx, row, keys);
          await events.append(trx, { projectId, type: 'domain.created', data: eventData(view), at });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicate();
        throw error;
      }
      events.notify();
      log.info({ domain: name, project_id: projectId, actor }, 'domain created');
      return view;
    },

    async list(projectId: string, page: { limit: number; after?: string | undefined }) {
      const rows = await store.list(projectId, { ...page, limit: page.limit + 1 });
      return { data: await views(rows.slice(0, page.limit)), has_more: rows.length > page.limit };
    },

    async get(projectId: string, id: string): Promise<DomainRecord> {
      const [view] = await views([await load(projectId, id)]);
      return view as DomainRecord;
    },

    /**
     * Deletes the domain and its keys: mail from it can no longer be sent, and mail from it still
     * queued fails when the delivery engine renders it (`email.failed`), never going out unsigned.
     */
    async remove(projectId: string, id: string, actor = 'api'): Promise<void> {
      const row = await load(projectId, id);
      const [view] = await views([row]);
      const removed = await store.transaction(async (trx: Db) => {
        if (!(await store.remove(trx, projectId, id))) return false;
        await events.append(trx, {
          projectId,
          type: 'domain.deleted',
          data: eventData(view as DomainRecord),
        });
        return true;
      });
      if (!removed) throw notFound(`Domain ${id}`);
      lookups.forget(projectId, row.name);
      events.notify();
      log.info({ domain: row.name, project_id: projectId, actor }, 'domain deleted');
    },

    /** Runs the DNS checks now; verified when SPF and DKIM pass. The first verified domain activates a sandbox project. */
    async verify(projectId: string, id: string, actor = 'api'): Promise<DomainRecord> {
      return check(await load(projectId, id), actor);
    },

    /**
     * The daily re-check: every domain's DNS again; a verified domain that broke becomes failed,
     * with an event. When `signal` aborts (shutdown), it stops between domains, and the check in
     * flight is abandoned unsaved with its DNS queries cancelled, so a stop never waits on DNS.
     */
    async recheckAll(signal?: AbortSignal): Promise<{ checked: number; failed: number }> {
      const cancel = () => resolver.cancel();
      signal?.addEventListener('abort', cancel, { once: true });
      let after = '';
      let checked = 0;
      let failed = 0;
      try {
        while (!signal?.aborted) {
          const rows = await store.page(after, RECHECK_PAGE);
          for (const row of rows) {
            if (signal?.aborted) break;
            try {
              await check(row, 'scheduler', signal);
              checked++;
            } catch (error) {
              if (signal?.aborted) break;
              failed++;
              log.warn({ err: error, domain: row.name }, 'domain re-check failed');
            }
          }
          if (rows.length < RECHECK_PAGE) break;
          after = (rows[rows.length - 1] as DomainRow).id;
        }
      } finally {
        signal?.removeEventListener('abort', cancel);
      }
      return { checked, failed };
    },

    /**
     * Every domain of every project checked against DNS now, nothing saved and no event (`posthorn
     * doctor`): each record as the API shows it, with this check's outcome and whether its
     * failure is only temporary.
     */
    async inspectAll(): Promise<InspectedDomain[]> {
      const inspected: InspectedDomain[] = [];
      for (let after = ''; ; ) {
        const rows = await store.page(after, RECHECK_PAGE);
        const keys = await store.publicKeysByDomain(rows.map((row) => row.id));
        for (const row of rows) {
          const records = recordsOf(row, keys.get(row.id));
          const outcomes = await runChecks(resolver, config, records);
          const at = Date.now();
          const checks = Object.fromEntries(
            [...outcomes].map(([key, outcome]) => [key, { ...outcome, checked_at: at }]),
          );
          inspected.push({
            id: row.id,
            name: row.name,
            project_id: row.project_id,
            records: records.map((record) => ({
              ...recordView(record, checks),
              temporary: outcomes.get(record.key)?.temporary === true,
            })),
          });
        }
        if (rows.length < RECHECK_PAGE) return inspected;
        after = (rows[rows.length - 1] as DomainRow).id;
      }
    },

    ...lookups,

    /** The VERP return-path host of `domain`: `<delivery.bounce_subdomain>.<domain>`. */
    bounceHost(domain: string): string {
      return bounceHost(config, domain.toLowerCase().replace(/\.$/, ''));
    },

    /** Per-domain SPF/DKIM/DMARC status from the last check (template check, dashboard). */
    async summaries(projectId: string) {
      const rows = await store.listAll(projectId);
      const keys = await store.publicKeysByDomain(rows.map((row) => row.id));
      return rows.map((row) => {
        const checks = parseChecks(row);
        const records = recordsOf(row, keys.get(row.id));
        const statusOf = (purpose: string) => {
          const record =
            records.find((r) => r.purpose === purpose && r.required) ??
            records.find((r) => r.purpose === purpose);
          return record ? recordStatus(checks, record.key) : 'pending';
        };
        return {
          name: row.name,
          status: row.status,
          spf_status: statusOf('spf'),
          dkim_status: statusOf('dkim'),
          dmarc_status: statusOf('dmarc'),
        };
      });
    },

    /** Whether the tracking host resolves (the template check reports it). */
    trackingDns(_projectId: string): Promise<{ domain: string; ok: boolean }> {
      return trackingDns(resolver, config);
    },
  };
}

export type DomainService = ReturnType<typeof createDomainService>;
