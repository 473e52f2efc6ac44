/**
 * Readiness of the process, one probe per component (api, database, queue, and whatever a
 * capability adds, such as the virus scanner). A probe never throws: a thrown error counts as
 * `unavailable`. `degraded` keeps /health at 200; any `unavailable` makes it 503.
 */
export type ComponentStatus = 'operational' | 'degraded' | 'unavailable';

export interface ProbeResult {
  readonly status: ComponentStatus;
  readonly detail?: string;
}

export type Probe = () => ProbeResult | Promise<ProbeResult>;

export interface HealthReport {
  readonly status: ComponentStatus;
  readonly components: Record<string, ProbeResult>;
}

const PROBE_TIMEOUT_MS = 2000;

async function runProbe(probe: Probe): Promise<ProbeResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'unavailable', detail: 'probe timed out' }), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(probe), timeout]);
  } catch (error) {
    return { status: 'unavailable', detail: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}

export function createHealthRegistry() {
  const probes = new Map<string, Probe>();
  return {
    register(name: string, probe: Probe): void {
      probes.set(name, probe);
    },
    async report(): Promise<HealthReport> {
      const names = [...probes.keys()];
      const results = await Promise.all(names.map((name) => runProbe(probes.get(name) as Probe)));
      const components: Record<string, ProbeResult> = {};
      names.forEach((name, i) => {
        components[name] = results[i] as ProbeResult;
      });
      const statuses = results.map((r) => r.status);
      const status: ComponentStatus = statuses.includes('unavailable')
        ? 'unavailable'
        : statuses.includes('degraded')
          ? 'degraded'
          : 'operational';
      return { status, components };
    },
  };
}

export type HealthRegistry = ReturnType<typeof createHealthRegistry>;
