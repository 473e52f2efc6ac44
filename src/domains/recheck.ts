/**
 * The daily DNS re-check as a background engine: node-cron runs `recheckAll` on
 * `domains.recheck_cron`, never two runs at once. A verified domain whose SPF or DKIM broke
 * becomes `failed` with a `domain.updated` event; temporary DNS failures change nothing. Stopping
 * never waits on DNS: the run stops between domains and abandons the check in flight.
 */
import cron from 'node-cron';
import type { Logger } from '../platform/log.js';
import type { DomainService } from './service.js';

export interface DomainRecheckEngine {
  readonly name: string;
  stop(): Promise<void>;
}

export function startDomainRecheck(
  domains: DomainService,
  schedule: string,
  log: Logger,
): DomainRecheckEngine {
  if (!cron.validate(schedule)) {
    throw new Error(`domains.recheck_cron "${schedule}" is not a valid cron expression, e.g. "17 4 * * *"`);
  }
  const logger = log.child({ capability: 'domains', engine: 'domain-recheck' });
  const stopping = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  const task = cron.schedule(
    schedule,
    () => {
      if (stopping.signal.aborted) return;
      running = domains
        .recheckAll(stopping.signal)
        .then((result) =>
          logger.info(
            result,
            stopping.signal.aborted ? 'domain DNS re-check stopped' : 'domain DNS re-check finished',
          ),
        )
        .catch((error: unknown) => logger.error({ err: error }, 'domain DNS re-check failed'));
      return running;
    },
    { name: 'domain-recheck', noOverlap: true },
  );
  return {
    name: 'domain-recheck',
    /** Abandons a run in progress (the domains not reached wait for the next run) and waits only for its current write. */
    async stop() {
      stopping.abort();
      await task.destroy();
      await running;
    },
  };
}
