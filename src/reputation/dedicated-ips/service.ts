/**
 * Dedicated IPs: a project asks for one (`POST /v1/dedicated-ips/requests`, 202), an operator
 * approves it with an address of `delivery.source_ips` and a warm-up plan, or declines it with a
 * reason (`posthorn admin ips ...`); `GET /v1/reputation` shows the requests, their reviews, the
 * assignment and the warm-up's progress. Delivery reads assignments through source-policy.ts.
 */
import { isIP } from 'node:net';
import type { AuditService } from '../../audit/service.js';
import type { Db } from '../../platform/db/database.js';
import { AppError, badRequest, conflict, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { DedicatedIpRequestView, DedicatedIpsReport } from './schemas.js';
import type { DedicatedIpStore, RequestRow } from './store.js';
import { utcDay, warmupDay } from './warmup.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function requestView(row: RequestRow): DedicatedIpRequestView {
  return {
    id: row.id,
    status: row.status,
    monthly_volume: row.monthly_volume,
    reason: row.reason,
    created_at: iso(row.created_at),
    review:
      row.status === 'pending' || row.reviewed_at === null
        ? null
        : {
            decision: row.status,
            note: row.review_note,
            ip: row.ip,
            plan: row.plan,
            reviewed_at: iso(row.reviewed_at),
          },
  };
}

export interface DedicatedIpDeps {
  readonly db: Db;
  readonly store: DedicatedIpStore;
  readonly audit: AuditService;
  /** `delivery.source_ips`. */
  readonly sourceIps: readonly string[];
  readonly plans: ReadonlyMap<string, readonly number[]>;
  readonly defaultPlan: string;
}

export function createDedicatedIpService(deps: DedicatedIpDeps) {
  const { store } = deps;

  async function pendingOrThrow(id: string, executor: Db): Promise<RequestRow> {
    const row = await store.getRequest(id, executor);
    if (!row) throw notFound(`Dedicated-IP request ${id}`);
    if (row.status !== 'pending') throw conflict(`Dedicated-IP request ${id} was already ${row.status}.`);
    return row;
  }

  return {
    /** Records a request for review; 409 when one is pending or the project already has an IP. */
    async request(projectId: string, input: { monthly_volume: number; reason: string }, now = Date.now()) {
      const [assigned] = await store.assignments(projectId);
      if (assigned) throw conflict(`This project already sends from its dedicated IP ${assigned.ip}.`);
      const pending = await store.pendingRequest(projectId);
      if (pending)
        throw conflict(
          `A dedicated-IP request of this project is already waiting for review (${pending.id}).`,
        );
      const row: RequestRow = {
        id: newId('dip', now),
        project_id: projectId,
        monthly_volume: input.monthly_volume,
        reason: input.reason,
        status: 'pending',
        review_note: null,
        reviewed_by: null,
        reviewed_at: null,
        ip: null,
        plan: null,
        created_at: now,
      };
      try {
        await store.insertRequest(row);
      } catch (error) {
        // Two requests at once: the unique index on pending requests lets one through.
        const again = await store.pendingRequest(projectId);
        if (again)
          throw conflict(
            `A dedicated-IP request of this project is already waiting for review (${again.id}).`,
          );
        throw error;
      }
      return requestView(row);
    },

    /** Every project's requests, newest first (the operator's queue). */
    list(status?: RequestRow['status']) {
      return store.listRequests(undefined, status);
    },

    /** Assigns `ip` (an address of delivery.source_ips, free, leaving one shared) with a warm-up plan. */
    async approve(
      id: string,
      options: { ip: string; plan?: string | undefined },
      actor: string,
      now = Date.now(),
    ) {
      const plan = options.plan ?? deps.defaultPlan;
      const limits = deps.plans.get(plan);
      if (!limits)
        throw badRequest(`No warm-up plan is named "${plan}"; known: ${[...deps.plans.keys()].join(', ')}.`);
      const ip = options.ip.trim();
      if (isIP(ip) === 0) throw badRequest(`"${ip}" is not an IP address.`);
      if (!deps.sourceIps.includes(ip))
        throw badRequest(
          `${ip} is not one of delivery.source_ips (${deps.sourceIps.join(', ') || 'none set'}).`,
        );
      return deps.db.transaction().execute(async (trx) => {
        const request = await pendingOrThrow(id, trx);
        const assignments = await store.assignments(undefined, trx);
        const taken = assignments.find((a) => a.ip === ip);
        if (taken) throw conflict(`${ip} is already the dedicated IP of project ${taken.project_id}.`);
        const own = assignments.find((a) => a.project_id === request.project_id);
        if (own) throw conflict(`Project ${request.project_id} already sends from ${own.ip}.`);
        const assigned = new Set([...assignments.map((a) => a.ip), ip]);
        if (deps.sourceIps.every((source) => assigned.has(source)))
          throw new AppError(
            'conflict',
            `Assigning ${ip} would leave no shared address in delivery.source_ips for the other projects; add one first.`,
          );
        await store.review(
          id,
          { status: 'approved', review_note: null, reviewed_by: actor, reviewed_at: now, ip, plan },
          trx,
        );
        await store.insertAssignment(
          {
            project_id: request.project_id,
            ip,
            request_id: id,
            plan_name: plan,
            daily_limits: JSON.stringify(limits),
            started_at: now,
            created_at: now,
          },
          trx,
        );
        await deps.audit.record(
          {
            actor,
            action: 'dedicated_ip.approved',
            projectId: request.project_id,
            target: id,
            details: { ip, plan },
          },
          trx,
        );
        return requestView({
          ...request,
          status: 'approved',
          reviewed_by: actor,
          reviewed_at: now,
          ip,
          plan,
        });
      });
    },

    async decline(id: string, reason: string, actor: string, now = Date.now()) {
      const note = reason.trim();
      if (note === '') throw badRequest('A reason is required to decline a request.');
      return deps.db.transaction().execute(async (trx) => {
        const request = await pendingOrThrow(id, trx);
        await store.review(
          id,
          {
            status: 'declined',
            review_note: note,
            reviewed_by: actor,
            reviewed_at: now,
            ip: null,
            plan: null,
          },
          trx,
        );
        await deps.audit.record(
          {
            actor,
            action: 'dedicated_ip.declined',
            projectId: request.project_id,
            target: id,
            details: { reason: note },
          },
          trx,
        );
        return requestView({
          ...request,
          status: 'declined',
          review_note: note,
          reviewed_by: actor,
          reviewed_at: now,
        });
      });
    },

    /** The project's requests and assignment with the warm-up's progress (GET /v1/reputation). */
    async report(projectId: string, now = Date.now()): Promise<DedicatedIpsReport> {
      const requests = await store.listRequests(projectId);
      const assignments = await store.assignments(projectId);
      const usage = await store.usageOn(
        utcDay(now),
        assignments.map((a) => a.ip),
      );
      return {
        requests: requests.map(requestView),
        assignments: assignments.map((a) => {
          const limits = JSON.parse(a.daily_limits) as number[];
          const day = warmupDay(limits, a.started_at, now);
          return {
            ip: a.ip,
            request_id: a.request_id,
            assigned_at: iso(a.created_at),
            plan: { name: a.plan_name, daily_limits: limits },
            warmup: {
              day: day.day,
              days: day.days,
              complete: day.complete,
              limit_per_provider_today: day.limit,
              sent_today: Object.fromEntries(usage.filter((u) => u.ip === a.ip).map((u) => [u.lane, u.sent])),
            },
          };
        }),
      };
    },
  };
}

export type DedicatedIpService = ReturnType<typeof createDedicatedIpService>;
