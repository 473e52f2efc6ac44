/**
 * Tracking settings per project (spec §2.10, §4.4): whether opens and clicks are tracked, how long
 * hits are kept, and an optional custom tracking domain. A project that never set them uses the
 * `[tracking]` defaults. A custom domain must be a host under one of the project's sending
 * domains and is checked in DNS when set, hourly after (engine.ts), and by the template check;
 * mail uses it only while it is verified, so a link never points at a host that does not lead here.
 *
 * Composition asks `decide` for every message, so settings are cached per project (changed ones
 * are forgotten at once; the cache only ever lives in this process).
 */
import { isIP } from 'node:net';
import { parseDomainName } from '../domains/name.js';
import type { Config } from '../platform/config/schema.js';
import type { TrackingSettingsTable } from '../platform/db/tables.js';
import type { DnsResolver } from '../platform/dns/resolver.js';
import { badRequest } from '../platform/http/errors.js';
import type { Logger } from '../platform/log.js';
import { checkCustomDomain, type DomainCheck } from './domain-check.js';
import type { TrackingSettingsRequest, TrackingSettingsView } from './schemas.js';
import type { TrackingStore } from './store.js';

export interface TrackingSettingsDeps {
  readonly store: TrackingStore;
  readonly config: Pick<Config, 'tracking' | 'server'>;
  readonly resolver: DnsResolver;
  /** The names of the project's sending domains. */
  readonly projectDomains: (projectId: string) => Promise<readonly string[]>;
  readonly log: Logger;
}

/** What composition needs to know about a message's tracking. */
export interface MessageTracking {
  readonly opens: boolean;
  readonly clicks: boolean;
  /** Scheme, host, port and path prefix of tracking URLs, no trailing slash. */
  readonly baseUrl: string;
}

const CACHE_MS = 30_000;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

export function createTrackingSettings(deps: TrackingSettingsDeps) {
  const { store, config, resolver } = deps;
  const publicUrl = new URL(config.server.public_url);
  const target = hostOf(publicUrl);
  const defaultHost = config.tracking.domain || target;
  const cache = new Map<string, { row: TrackingSettingsTable | undefined; at: number }>();

  const baseUrlFor = (host: string): string => {
    const url = new URL(publicUrl.href);
    url.hostname = isIP(host) === 6 ? `[${host}]` : host;
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  };
  const hostInUse = (row: TrackingSettingsTable | undefined): string =>
    row?.custom_domain && row.dns_status === 'verified' ? row.custom_domain : defaultHost;

  async function load(projectId: string): Promise<TrackingSettingsTable | undefined> {
    const cached = cache.get(projectId);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.row;
    const row = await store.settings(projectId);
    cache.set(projectId, { row, at: Date.now() });
    return row;
  }

  function view(row: TrackingSettingsTable | undefined): TrackingSettingsView {
    return {
      opens_enabled: row ? row.opens_enabled === 1 : config.tracking.opens_enabled,
      clicks_enabled: row ? row.clicks_enabled === 1 : config.tracking.clicks_enabled,
      retention_days: row?.retention_days ?? config.tracking.retention_days,
      custom_domain: row?.custom_domain ?? null,
      tracking_domain: hostInUse(row),
      dns: {
        status: row?.dns_status ?? 'none',
        target,
        reason: row?.dns_reason ?? null,
        checked_at: iso(row?.dns_checked_at ?? null),
      },
      updated_at: iso(row?.updated_at ?? null),
    };
  }

  /** The custom domain normalized, or a 400 naming the field. */
  async function validDomain(projectId: string, input: string): Promise<string> {
    const refuse = (message: string) =>
      badRequest(`custom_domain: "${input}" ${message}.`, [{ path: 'custom_domain', message }]);
    const parsed = parseDomainName(input);
    if (!parsed.ok) throw refuse(parsed.reason);
    const domains = await deps.projectDomains(projectId);
    if (!domains.some((name) => parsed.name.endsWith(`.${name}`)))
      throw refuse(
        domains.length === 0
          ? "must be a host under one of this project's domains, and the project has none yet"
          : `must be a host under one of this project's domains (${domains.join(', ')}), such as "links.${domains[0]}"`,
      );
    return parsed.name;
  }

  async function recordCheck(projectId: string, domain: string): Promise<DomainCheck> {
    const result = await checkCustomDomain(resolver, domain, target);
    await store.setDnsState(projectId, domain, { ...result, at: Date.now() });
    cache.delete(projectId);
    return result;
  }

  return {
    /** The project's settings as `GET /v1/tracking` shows them. */
    async get(projectId: string): Promise<TrackingSettingsView> {
      return view(await load(projectId));
    },

    /** Replaces the project's settings; a custom domain is checked in DNS before this answers. */
    async put(projectId: string, input: TrackingSettingsRequest): Promise<TrackingSettingsView> {
      const domain =
        input.custom_domain === undefined ? null : await validDomain(projectId, input.custom_domain);
      const previous = await store.settings(projectId);
      const kept = domain !== null && previous?.custom_domain === domain;
      await store.putSettings({
        project_id: projectId,
        opens_enabled: input.opens_enabled ? 1 : 0,
        clicks_enabled: input.clicks_enabled ? 1 : 0,
        retention_days: input.retention_days,
        custom_domain: domain,
        dns_status: domain === null ? 'none' : kept ? (previous?.dns_status ?? 'pending') : 'pending',
        dns_reason: kept ? (previous?.dns_reason ?? null) : null,
        dns_checked_at: kept ? (previous?.dns_checked_at ?? null) : null,
        updated_at: Date.now(),
      });
      cache.delete(projectId);
      if (domain !== null) await recordCheck(projectId, domain);
      return view(await store.settings(projectId));
    },

    /**
     * A message's tracking: its own `track_opens`/`track_clicks` when given (null: the project's),
     * and the host its URLs use.
     */
    async decide(
      projectId: string,
      trackOpens: boolean | null,
      trackClicks: boolean | null,
    ): Promise<MessageTracking> {
      const row = await load(projectId);
      const settings = view(row);
      return {
        opens: trackOpens ?? settings.opens_enabled,
        clicks: trackClicks ?? settings.clicks_enabled,
        baseUrl: baseUrlFor(hostInUse(row)),
      };
    },

    /** The tracking host of the project and whether it resolves here (the template check's `tracking_dns_ok`). */
    async dnsState(projectId: string): Promise<{ domain: string; ok: boolean } | undefined> {
      const row = await load(projectId);
      if (!row?.custom_domain) return undefined;
      const result = await recordCheck(projectId, row.custom_domain);
      return { domain: row.custom_domain, ok: result.status === 'verified' };
    },

    /** Checks every custom domain again (hourly); returns how many are verified. */
    async recheckAll(): Promise<number> {
      let verified = 0;
      for (const { project_id, custom_domain } of await store.customDomains()) {
        const result = await recordCheck(project_id, custom_domain);
        if (result.status === 'verified') verified++;
        else
          deps.log.warn(
            { project_id, custom_domain, reason: result.reason },
            'custom tracking domain not verified',
          );
      }
      return verified;
    },

    /** Days hits of projects without settings are kept. */
    defaultRetentionDays: config.tracking.retention_days,
  };
}

export type TrackingSettings = ReturnType<typeof createTrackingSettings>;
