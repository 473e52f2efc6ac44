/**
 * The daily DNS re-check as a background engine: node-cron runs `recheckAll` on
 * `domains.recheck_cron`, never two runs at once. A verified domain whose SPF or DKIM broke
 * becomes `failed` with a `domain.updated` event; temporary DNS failures change nothing.
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
  let running: Promise<unknown> = Promise.resolve();
  const task = cron.schedule(
    schedule,
    () => {
      running = domains
        .recheckAll()
        .then((result) => logger.info(result, 'domain DNS re-check finished'))
        .catch((error: unknown) => logger.error({ err: error }, 'domain DNS re-check failed'));
      return running;
    },
    { name: 'domain-recheck', noOverlap: true },
  );
  return {
    name: 'domain-recheck',
    async stop() {
      await task.destroy();
      await running;
    },
  };
}
