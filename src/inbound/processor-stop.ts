/**
 * What a bounded stop of the processor leaves behind. Past `PROCESSOR_STOP_MS` the stop abandons
 * the messages still in progress (analysis waiting on DNS, say): their spool files stay for the next
 * start (`recover()`), which processes them again. The work itself goes on in the background until
 * the process exits, so from then on it must write nothing: every write step of the processor
 * asks `live()` first, which throws once the stop has abandoned it, and changes to the spool
 * already under way (a remove, a move to `failed/`) are waited for before the stop returns, for
 * `SPOOL_GRACE_MS` at most: a rename or unlink takes microseconds, and one that takes longer waits
 * on a hung disk (an fsync that never returns), which must not hold the stop for ever. Whatever
 * such a change did not do, the next start finds undone: the file is processed again or moved
 * again. Taking back the run counts is bounded the same way.
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

/** How long a stop waits, after the above, for changes to the spool already under way. */
export const SPOOL_GRACE_MS = 1_000;

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
        if (!(await settlesWithin(Promise.allSettled([...changes]), SPOOL_GRACE_MS)))
          deps.log.error(
            { changes: changes.size, waited_ms: SPOOL_GRACE_MS, spool: deps.spool.dir },
            'changes to the inbound spool did not finish (is the disk hung?); the next start finds their files as they are',
          );
        deps.log.warn(
          { messages: left, waited_ms: ms },
          `stopped with ${left} inbound messages still being processed; they stay in the spool for the next start`,
        );
      }
      // Also the runs of files waiting for a retry: the stop ends them no less than a crash would.
      const uncounting = Promise.all([...counted].map(([id, counting]) => uncount(id, counting)));
      counted.clear();
      if (!(await settlesWithin(uncounting, SPOOL_GRACE_MS)))
        deps.log.error(
          { waited_ms: SPOOL_GRACE_MS, spool: deps.spool.dir },
          'the run counts of unfinished inbound messages could not be taken back in time (is the disk hung?)',
        );
    },
  };
}
