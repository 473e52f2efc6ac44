/**
 * One run at a time of a projection that follows the event log (analytics, the reputation
 * center), in two kinds:
 *
 * - `catchUp()`, for a report: projects every event committed before the call, and on PostgreSQL
 *   also waits a while for events held back behind a transaction still running (their commit-safe
 *   order, events/log-pg.ts), so the report counts what was just committed.
 * - `follow()`, for the background run woken by appends: projects what is readable and stops.
 *   Events held back now are read on a later wake (their own commit notifies, and the projection
 *   polls every few seconds anyway). Waiting for them here kept a loaded node re-reading the log
 *   every 20 ms, for up to 5 s after every wake: under steady delivery on PostgreSQL there is
 *   nearly always an outcome transaction in flight.
 *
 * A caller arriving during a run gets the next one, shared by every caller that arrives
 * meanwhile: the running one may have read the log before the caller's events were committed.
 * The next run waits for held-back events when any of its callers asked for it.
 */
export interface ProjectionRuns {
  catchUp(): Promise<void>;
  follow(): Promise<void>;
  /** Resolves when no run is in progress or queued (a stop waits for it). */
  settled(): Promise<void>;
}

/** `drain(waitHeldBack)` projects until the log is read; with `waitHeldBack`, it waits for held-back events too. */
export function projectionRuns(drain: (waitHeldBack: boolean) => Promise<void>): ProjectionRuns {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let queuedWaits = false;

  function run(waitHeldBack: boolean): Promise<void> {
    if (!running) {
      const started = drain(waitHeldBack).finally(() => {
        if (running === started) running = undefined;
      });
      running = started;
      return started;
    }
    queuedWaits ||= waitHeldBack;
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        const waits = queuedWaits;
        queued = undefined;
        queuedWaits = false;
        return run(waits);
      });
    return queued;
  }

  return {
    catchUp: () => run(true),
    follow: () => run(false),
    settled: () => queued ?? running ?? Promise.resolve(),
  };
}
