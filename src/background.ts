/**
 * Background engines of `posthorn serve` (timers, the delivery engine, the dispatcher, the
 * scheduler). Each starts after HTTP is listening and is stopped, in reverse order, on shutdown.
 */
import { startScheduler } from './emails/scheduler.js';
import type { Kernel } from './kernel.js';
import type { Services } from './services.js';

export interface Engine {
  readonly name: string;
  stop(): Promise<void> | void;
}

const LAST_USED_FLUSH_MS = 5000;

function lastUsedFlusher(kernel: Kernel, services: Services): Engine {
  const timer = setInterval(() => {
    services.keys
      .flushLastUsed()
      .catch((error: unknown) => kernel.log.error({ err: error }, 'last-used flush failed'));
  }, LAST_USED_FLUSH_MS);
  timer.unref();
  return { name: 'api-key-last-used', stop: () => clearInterval(timer) };
}

export async function startBackground(
  kernel: Kernel,
  services: Services,
): Promise<{ stop(): Promise<void> }> {
  const engines: Engine[] = [lastUsedFlusher(kernel, services)];
  engines.push(
    startScheduler(kernel.db, services.emails.store, services.events, kernel.log.child({ capability: 'emails' })),
  );
  return {
    async stop() {
      for (const engine of engines.reverse()) await engine.stop();
    },
  };
}
