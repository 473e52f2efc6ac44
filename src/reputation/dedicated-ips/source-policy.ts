/**
 * Which local address a project's mail leaves from: the port the delivery engine asks before it
 * picks a connection ("which source address for this project and provider now?"). A project with a
 * dedicated IP sends from it while the warm-up plan allows: each answer counts the recipients it
 * lets through against today's limit for that provider lane, so the address never carries more
 * than the plan allows; the rest, and every other project's mail, leaves from the shared addresses
 * (`delivery.source_ips` less the assigned ones). Assignments made by `posthorn admin ips approve`
 * (another process) are read again every few seconds. Counts are kept in memory, where the check
 * and the count are one synchronous step, and written through to the store, from which a restart
 * takes them back.
 */
import type { Logger } from '../../platform/log.js';
import type { DedicatedIpStore } from './store.js';
import { utcDay, warmupDay } from './warmup.js';

export interface SourcePolicy {
  /**
   * The dedicated address mail of `projectId` through `lane` leaves from now, `recipients` counted
   * against today's plan; undefined sends it from the shared addresses.
   */
  dedicatedFor(projectId: string, lane: string, recipients: number, now?: number): string | undefined;
  /** The addresses every project without a dedicated one (or over its plan) sends from. */
  shared(): readonly string[];
}

interface Assigned {
  readonly ip: string;
  readonly limits: readonly number[];
  readonly startedAt: number;
}

const REFRESH_MS = 5000;

export class DedicatedSources implements SourcePolicy {
  readonly #store: DedicatedIpStore;
  readonly #configured: readonly string[];
  readonly #log: Logger;
  #byProject = new Map<string, Assigned>();
  #shared: readonly string[];
  readonly #sent = new Map<string, number>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #loading: Promise<void> | undefined;

  constructor(store: DedicatedIpStore, sourceIps: readonly string[], log: Logger) {
    this.#store = store;
    this.#configured = sourceIps;
    this.#shared = sourceIps;
    this.#log = log;
  }

  /** Reads the assignments and today's counts (at start, before delivery asks; then by itself). */
  load(now = Date.now()): Promise<void> {
    this.#loading ??= this.#read(now).finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  shared(): readonly string[] {
    return this.#shared;
  }

  dedicatedFor(projectId: string, lane: string, recipients: number, now = Date.now()): string | undefined {
    if (now - this.#loadedAt > REFRESH_MS) this.load(now).catch(() => undefined);
    const assigned = this.#byProject.get(projectId);
    if (!assigned) return undefined;
    const { limit } = warmupDay(assigned.limits, assigned.startedAt, now);
    const day = utcDay(now);
    const key = `${assigned.ip}|${day}|${lane}`;
    const sent = this.#sent.get(key) ?? 0;
    if (limit !== null && sent + recipients > limit) return undefined;
    this.#sent.set(key, sent + recipients);
    this.#store
      .addUsage(assigned.ip, day, lane, recipients)
      .catch((error: unknown) =>
        this.#log.error({ err: error, ip: assigned.ip }, 'dedicated IP usage not recorded'),
      );
    return assigned.ip;
  }

  async #read(now: number): Promise<void> {
    try {
      const rows = await this.#store.assignments();
      const byProject = new Map<string, Assigned>();
      for (const row of rows) {
        if (!this.#configured.includes(row.ip)) {
          // An address taken out of delivery.source_ips cannot be bound; its project sends shared.
          this.#log.warn(
            { ip: row.ip, project_id: row.project_id },
            'dedicated IP is not in delivery.source_ips',
          );
          continue;
        }
        byProject.set(row.project_id, {
          ip: row.ip,
          limits: JSON.parse(row.daily_limits) as number[],
          startedAt: row.started_at,
        });
      }
      const assigned = new Set(rows.map((row) => row.ip));
      const day = utcDay(now);
      for (const usage of await this.#store.usageOn(day)) {
        const key = `${usage.ip}|${usage.day}|${usage.lane}`;
        // Writes still in flight are in memory, not yet in the store: keep the larger count.
        this.#sent.set(key, Math.max(this.#sent.get(key) ?? 0, usage.sent));
      }
      for (const key of this.#sent.keys()) if (!key.includes(`|${day}|`)) this.#sent.delete(key);
      this.#byProject = byProject;
      this.#shared = this.#configured.filter((ip) => !assigned.has(ip));
      this.#loadedAt = now;
    } catch (error) {
      this.#log.error({ err: error }, 'dedicated IP assignments not read; keeping the last ones');
      this.#loadedAt = now;
    }
  }
}
