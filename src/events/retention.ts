/**
 * Retention, hourly, a batch at a time so the write lock is never held long. Two windows run it
 * (background.ts): `retention.events_days` for events, webhook messages with their attempts (not
 * while one is pending), delivery attempts and settled analytics recipient records (the daily
 * aggregates are kept: they are tiny), and `retention.messages_days` for message bodies, sent and
 * received, and attachments.
 */
import type { Logger } from '../platform/log.js';

const EVERY_MS = 3_600_000;
const FIRST_RUN_MS = 60_000;
const DAY_MS = 86_400_000;

/** Deletes up to one batch of rows older than `cutoff`; returns how many went. */
export type Purger = (cutoff: number) => Promise<number>;

export async function purgeAll(
  purgers: Readonly<Record<string, Purger>>,
  cutoff: number,
): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  const failed: unknown[] = [];
  for (const [name, purge] of Object.entries(purgers)) {
    let total = 0;
    try {
      for (;;) {
        const n = await purge(cutoff);
        total += n;
        if (n === 0) break;
        // Let other work in between batches.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (error) {
      // One table's failure leaves the others' purges to run; the run still fails, naming it.
      failed.push(
        new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error }),
      );
    }
    removed[name] = total;
  }
  if (failed.length > 0) throw new AggregateError(failed, `retention failed for ${failed.length} table(s)`);
  return removed;
}

export function startRetention(
  days: number,
  purgers: Readonly<Record<string, Purger>>,
  log: Logger,
  name = 'retention',
) {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= purgeAll(purgers, Date.now() - days * DAY_MS)
      .then((removed) => {
        if (Object.values(removed).some((n) => n > 0)) log.info({ removed, days }, `${name} purge`);
      })
      .catch((error: unknown) => log.error({ err: error }, `${name} purge failed`))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, FIRST_RUN_MS);
  const every = setInterval(run, EVERY_MS);
  first.unref();
  every.unref();
  return {
    name,
    async stop() {
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
