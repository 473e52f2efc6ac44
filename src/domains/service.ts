/**
 * Sending domains: create (with a DKIM key pair sealed at rest), list, get, delete, verify through
 * the configured resolver, and the daily re-check. Other capabilities call `findVerifiedByName`
 * (the send API's sender check), `signingKeys` and `bounceHost` (delivery). Private keys leave
 * this module only through `signingKeys`, unsealed in memory, and never in a response or a log.
 */
import type { EventService } from '../events/service.js';
import { dkimKeyOptions, generateDkimKeys } from '../dkim/keys.js';
import { sealDkimKey, unsealDkimKey } from '../dkim/key-seal.js';
import type { Config } from '../platform/config/schema.js';
import type { Db } from '../platform/db/database.js';
import type { DomainStatus } from '../platform/db/tables.js';
import type { DnsResolver } from '../platform/dns/resolver.js';
import { badRequest, conflict, notFound } from '../platform/http/errors.js';
import { newId } from '../platform/ids.js';
import type { Logger } from '../platform/log.js';
import type { ProjectService } from '../projects/service.js';
import { type CheckOutcome, runChecks } from './checks.js';
import { parseDomainName } from './name.js';
import { bounceHost, type ExpectedRecord, expectedRecords, type PublicDkimKey } from './records.js';
import type { DomainRecord } from './schemas.js';
import type { DkimKeyRow, DomainRow, DomainStore } from './store.js';
import { domainView, eventData, parseChecks, recordStatus, type StoredChecks } from './views.js';
import { trackingDns } from './tracking.js';

export interface DomainServiceDeps {
  readonly store: DomainStore;
  readonly config: Config;
  readonly masterKey: Buffer;
  readonly resolver: DnsResolver;
  readonly events: EventService;
  readonly projects: ProjectService;
  readonly log: Logger;
}

/** What the delivery engine needs to sign mail from a domain; spreads into the signer's SignRequest. */
export interface SigningKeys {
  readonly domainId: string;
  /** d=, the domain name. */
  readonly domain: string;
  readonly selector: string;
  readonly privateKeyPem: string;
  readonly algorithm: 'rsa-sha256';
  readonly ed25519?: { readonly selector: string; readonly privateKeyPem: string };
}

export interface VerifiedDomain {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
}

const SIGNING_CACHE_MAX = 1000;
const RECHECK_PAGE = 100;

const isUniqueViolation = (error: unknown) =>
  (error as { code?: string })?.code === 'SQLITE_CONSTRAINT_UNIQUE';

/** Verified when every required record passes; only-temporary failures leave the status as it was. */
function decideStatus(
  previous: DomainStatus,
  records: readonly ExpectedRecord[],
  outcomes: Map<string, CheckOutcome>,
): DomainStatus {
  const required = records.filter((record) => record.required).map((record) => outcomes.get(record.key));
  if (required.every((outcome) => outcome?.status === 'verified')) return 'verified';
  if (required.some((outcome) => outcome?.status !== 'verified' && !outcome?.temporary)) return 'failed';
  return previous;
}

function normalizedName(input: string): string {
  const parsed = parseDomainName(input);
  if (!parsed.ok)
    throw badRequest(`name: "${input}" ${parsed.reason}.`, [{ path: 'name', message: parsed.reason }]);
  return parsed.name;
}

export function createDomainService(deps: DomainServiceDeps) {
  const { store, config, masterKey, resolver, events, projects } = deps;
  const log = deps.log.child({ capability: 'domains' });
  const signingCache = new Map<string, SigningKeys>();

  const publicKeysOf = async (rows: readonly DomainRow[]): Promise<Map<string, PublicDkimKey[]>> => {
    const byDomain = new Map<string, PublicDkimKey[]>();
    for (const key of await store.publicKeys(rows.map((row) => row.id))) {
      const list = byDomain.get(key.domain_id) ?? [];
      list.push({ algorithm: key.algorithm, selector: key.selector, publicKey: key.public_key });
      byDomain.set(key.domain_id, list);
    }
    return byDomain;
  };

  const recordsOf = (row: DomainRow, keys: readonly PublicDkimKey[] | undefined) =>
    expectedRecords(config, row.name, keys ?? []);

  const views = async (rows: readonly DomainRow[]): Promise<DomainRecord[]> => {
    const keys = await publicKeysOf(rows);
    return rows.map((row) => domainView(row, recordsOf(row, keys.get(row.id))));
  };

  const load = async (projectId: string, id: string): Promise<DomainRow> => {
    const row = await store.find(projectId, id);
    if (!row) throw notFound(`Domain ${id}`);
    return row;
  };

  /** Runs the DNS checks of one domain, saves them, and tells the world what changed. */
  const check = async (row: DomainRow, actor: string): Promise<DomainRecord> => {
    const keys = (await publicKeysOf([row])).get(row.id);
    const records = recordsOf(row, keys);
    const outcomes = await runChecks(resolver, config, records);
    const at = Date.now();
    const previous = parseChecks(row);
    const checks: Record<string, StoredChecks[string]> = {};
    for (const [key, outcome] of outcomes) checks[key] = { ...outcome, checked_at: at };
    const status = decideStatus(row.status, records, outcomes);
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
    const view = domainView(updated, records);
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
      return true;
    });
    if (!stillThere) throw notFound(`Domain ${row.id}`);
    if (changed) events.notify();
    if (status !== row.status)
      log.info({ domain: row.name, from: row.status, to: status, actor }, 'domain status changed');
    if (status === 'verified') await projects.activateFromSandbox(row.project_id, actor);
    return view;
  };

  return {
    async create(
      projectId: string,
      input: { name: string; region: string },
      actor = 'api',
    ): Promise<DomainRecord> {
      const name = normalizedName(input.name);
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

    /** Deletes the domain and its keys; mail from it can no longer be sent or signed. */
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
      signingCache.delete(`${projectId}\n${row.name}`);
      events.notify();
      log.info({ domain: row.name, project_id: projectId, actor }, 'domain deleted');
    },

    /** Runs the DNS checks now; verified when SPF and DKIM pass. The first verified domain activates a sandbox project. */
    async verify(projectId: string, id: string, actor = 'api'): Promise<DomainRecord> {
      return check(await load(projectId, id), actor);
    },

    /** The daily re-check: every domain's DNS again; a verified domain that broke becomes failed, with an event. */
    async recheckAll(): Promise<{ checked: number; failed: number }> {
      let after = '';
      let checked = 0;
      let failed = 0;
      for (;;) {
        const rows = await store.page(after, RECHECK_PAGE);
        for (const row of rows) {
          try {
            await check(row, 'scheduler');
            checked++;
          } catch (error) {
            failed++;
            log.warn({ err: error, domain: row.name }, 'domain re-check failed');
          }
        }
        if (rows.length < RECHECK_PAGE) break;
        after = (rows[rows.length - 1] as DomainRow).id;
      }
      return { checked, failed };
    },

    /**
     * The project's domain of that name if it is verified: the send API's sender check. `name` is
     * normalized (case, IDN, trailing dot); an invalid name is simply not found.
     */
    async findVerifiedByName(projectId: string, name: string): Promise<VerifiedDomain | undefined> {
      const parsed = parseDomainName(name);
      if (!parsed.ok) return undefined;
      const row = await store.findByName(projectId, parsed.name);
      return row?.status === 'verified'
        ? { id: row.id, projectId: row.project_id, name: row.name }
        : undefined;
    },

    /** `findVerifiedByName` as a yes/no (the send API's port). */
    async isVerified(projectId: string, name: string): Promise<boolean> {
      return (await this.findVerifiedByName(projectId, name)) !== undefined;
    },

    /** Whether the project's domain with this ID is verified (inbound routes need one). */
    async isVerifiedById(projectId: string, domainId: string): Promise<boolean> {
      return (await store.find(projectId, domainId))?.status === 'verified';
    },

    /**
     * The unsealed DKIM keys of the project's domain `domainName` (whatever its verification
     * status), or undefined when the project has no such domain. Cached in memory; never log it.
     *
     * @example
     * const keys = await services.domains.signingKeys(projectId, 'example.com');
     * if (keys) signed = await signer.sign(raw, keys);
     */
    async signingKeys(projectId: string, domainName: string): Promise<SigningKeys | undefined> {
      const parsed = parseDomainName(domainName);
      if (!parsed.ok) return undefined;
      const cacheKey = `${projectId}\n${parsed.name}`;
      const cached = signingCache.get(cacheKey);
      if (cached) return cached;
      const row = await store.findByName(projectId, parsed.name);
      if (!row) return undefined;
      const sealed = await store.sealedKeys(row.id);
      const rsa = sealed.find((key) => key.algorithm === 'rsa-sha256');
      if (!rsa) return undefined;
      const ed = sealed.find((key) => key.algorithm === 'ed25519-sha256');
      const keys: SigningKeys = {
        domainId: row.id,
        domain: row.name,
        selector: rsa.selector,
        privateKeyPem: unsealDkimKey(masterKey, rsa.private_key_sealed, row.id),
        algorithm: 'rsa-sha256',
        ...(ed
          ? {
              ed25519: {
                selector: ed.selector,
                privateKeyPem: unsealDkimKey(masterKey, ed.private_key_sealed, row.id),
              },
            }
          : {}),
      };
      if (signingCache.size >= SIGNING_CACHE_MAX)
        signingCache.delete(signingCache.keys().next().value as string);
      signingCache.set(cacheKey, keys);
      return keys;
    },

    /** The VERP return-path host of `domain`: `<delivery.bounce_subdomain>.<domain>`. */
    bounceHost(domain: string): string {
      return bounceHost(config, domain.toLowerCase().replace(/\.$/, ''));
    },

    /** Per-domain SPF/DKIM/DMARC status from the last check (template check, dashboard). */
    async summaries(projectId: string) {
      const rows = await store.listAll(projectId);
      const keys = await publicKeysOf(rows);
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
