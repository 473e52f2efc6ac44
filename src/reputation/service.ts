/**
 * The reputation capability's rules, as `GET /v1/reputation` and the CLI reach them: the center's
 * figures of Posthorn's own events, dedicated IPs with their warm-up, and the data of the
 * mailbox-provider connections.
 */
import type { Config } from '../platform/config/schema.js';
import type { ReputationCenter } from './center/center.js';
import type { ConnectionService } from './connections/service.js';
import type { DedicatedIpService } from './dedicated-ips/service.js';
import type { DedicatedSources } from './dedicated-ips/source-policy.js';
import type { ReputationReport } from './schemas.js';

export function createReputationService(deps: {
  center: ReputationCenter;
  dedicatedIps: DedicatedIpService;
  /** The port delivery asks for a project's source address (dedicated-ips/source-policy.ts). */
  sources: DedicatedSources;
  connections: ConnectionService;
  config: Config['reputation'];
}) {
  const { config } = deps;
  return {
    center: deps.center,
    dedicatedIps: deps.dedicatedIps,
    sources: deps.sources,
    connections: deps.connections,
    async report(projectId: string, now = Date.now()): Promise<ReputationReport> {
      const figures = await deps.center.figures(projectId, now);
      return {
        generated_at: new Date(now).toISOString(),
        state: figures.state,
        thresholds: {
          bounce_rate: { warning: config.bounce_rate_warning, at_risk: config.bounce_rate_at_risk },
          complaint_rate: { warning: config.complaint_rate_warning, at_risk: config.complaint_rate_at_risk },
          min_volume: config.min_volume,
        },
        domains: figures.domains,
        lanes: figures.lanes,
        blocked_lanes: figures.blocked_lanes,
        dedicated_ips: await deps.dedicatedIps.report(projectId, now),
        providers: await deps.connections.report(projectId, now),
      };
    },
  };
}

export type ReputationService = ReturnType<typeof createReputationService>;
