/**
 * What a bounded stop of the processor leaves behind. Past `PROCESSOR_STOP_MS` the stop abandons
 * the messages still in progress (analysis waiting on DNS, say): their spool files stay for the next
 * start (`recover()`), which processes them again. The work itself goes on in the background until
 * the process exits, so from then on it must write nothing: every write step of the processor
 * asks `live()` first, which throws once the stop has abandoned it, and changes to the spool
 * already under way are waited for before the stop returns (the store closes right after it).
 *
 * A clean stop is not a crash: the poison rule (`MAX_UNFINISHED_RUNS`) must not count it. The runs
 * this process counted (`spool.countRun`) for files it never finished are taken back at the stop.
 */
import type { Logger } from '../platform/log.js';
import { settlesWithin } from '../platform/settles-within.js';
import type { Spool } from './listener/spool.js';

/**
 * How long a stop waits for the messages in progress once the listener has closed. They had all
 * of `server.shutdown_timeout` before that; what is left after this waits for the next start.
 */
export const PROCESSOR_STOP_MS = 5_000;

export interface ProcessorStop {
  /** Throws once the stop has abandoned the work in progress: nothing may be written after it. */
  live(): void;
  readonly abandoned: boolean;
  /** Counts a run of a left-over file (`spool.countRun`), to be taken back if it never finishes. */
  countRun(id: string): Promise<number>;
  /** The message is done with (processed or given up on): its run stays counted, or went with it. */
  finished(id: string): void;
  /** Tracks a change to the spool (a remove or a move), which a stop lets finish before it returns. */
  change<T>(work: Promise<T>): Promise<T>;
  /** Waits up to `ms` for `idle`; past it abandons what is in progress. Then takes back the runs. */
  stop(idle: () => Promise<void>, inProgress: () => number, ms?: number): Promise<void>;
}

export function createProcessorStop(deps: { readonly spool: Spool; readonly log: Logger }): ProcessorStop {
  let abandoned = false;
  // Runs this process counted, by file, with the count before it; until the file is finished.
  const counted = new Map<string, Promise<number>>();
  const changes = new Set<Promise<unknown>>();

  const uncount = async (id: string, counting: Promise<number>) => {
    const earlier = await counting.catch(() => undefined);
    if (earlier === undefined) return;
    await deps.spool
      .uncountRun(id, earlier)
      .catch((error: unknown) =>
        deps.log.warn(
          { err: error, receipt: id },
          'could not take back the run count of an unfinished inbound message',
        ),
      );
  };

  return {
    live() {
      if (abandoned) throw new Error('abandoned by the stop');
    },
    get abandoned() {
      return abandoned;
    },
    countRun(id) {
      const counting = deps.spool.countRun(id);
      counted.set(id, counting);
      return counting;
    },
    finished(id) {
      counted.delete(id);
    },
    change(work) {
      changes.add(work);
      void work.then(
        () => changes.delete(work),
        () => changes.delete(work),
      );
      return work;
    },
    async stop(idle, inProgress, ms = PROCESSOR_STOP_MS) {
      if (!(await settlesWithin(idle(), ms))) {
        abandoned = true;
        const left = inProgress();
        await Promise.allSettled([...changes]);
        deps.log.warn(
          { messages: left, waited_ms: ms },
          `stopped with ${left} inbound messages still being processed; they stay in the spool for the next start`,
        );
      }
      // Also the runs of files waiting for a retry: the stop ends them no less than a crash would.
      await Promise.all([...counted].map(([id, counting]) => uncount(id, counting)));
      counted.clear();
    },
  };
}
