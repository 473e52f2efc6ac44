/**
 * A background worker's passes, one at a time however often it is woken: a wake while a pass runs
 * asks for one more pass after it, so no wake is lost and two passes never overlap. A pass that
 * throws is handed to `onError` (the worker logs it) and the next wake runs again.
 *
 * It never schedules a pass by itself: the worker's timers and listeners call `wake`.
 *
 * @example
 *   const runner = passRunner(pump, (err) => log.error({ err }, 'webhook dispatcher pass failed'));
 *   events.onAppended(runner.wake);
 *   // on shutdown:
 *   await runner.stop();
 */
export interface PassRunner {
  /** Runs a pass now, or once more after the one running; nothing once stopped. */
  readonly wake: () => void;
  /** The pass running now, if any. */
  readonly running: Promise<void> | undefined;
  /** Set by `stop`; a pass looping over pages checks it between pages. */
  readonly stopped: boolean;
  /** No more passes; resolves once the one running (if any) has ended. */
  stop(): Promise<void>;
}

export function passRunner(
  pass: () => Promise<void>,
  onError: (error: unknown) => void,
  /** Called after a pass that no wake asked to repeat (e.g. to arm the worker's poll timer). */
  afterPass?: () => void,
): PassRunner {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const wake = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch(onError)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          wake();
        } else afterPass?.();
      });
  };
  return {
    wake,
    get running() {
      return running;
    },
    get stopped() {
      return stopped;
    },
    stop() {
      stopped = true;
      return running ?? Promise.resolve();
    },
  };
}
