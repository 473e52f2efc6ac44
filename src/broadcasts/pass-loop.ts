/**
 * The background loop the expansion and the preparation run on: one pass after another, each
 * saying how long to wait before the next (0: yield the event loop, then go on at once). `wake`
 * cuts a wait short; `stop` ends the loop after the pass in progress. A pass that throws is
 * reported and tried again after `idleMs`.
 */
export class PassLoop {
  readonly #pass: () => Promise<number>;
  readonly #idleMs: number;
  readonly #onError: (error: unknown) => void;
  #stopped = false;
  #running: Promise<void> = Promise.resolve();
  #wakeUp: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  /** `pass` returns the milliseconds to wait before the next pass. */
  constructor(pass: () => Promise<number>, idleMs: number, onError: (error: unknown) => void) {
    this.#pass = pass;
    this.#idleMs = idleMs;
    this.#onError = onError;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    this.#running = this.#loop();
  }

  wake(): void {
    this.#wakeUp?.();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.wake();
    await this.#running;
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      let wait = this.#idleMs;
      try {
        wait = await this.#pass();
      } catch (error) {
        this.#onError(error);
      }
      if (this.#stopped) break;
      await new Promise<void>((resolve) => {
        this.#wakeUp = resolve;
        if (wait === 0) setImmediate(resolve);
        else this.#timer = setTimeout(resolve, wait);
      });
      // A wait cut short by `wake` leaves its timer behind.
      clearTimeout(this.#timer);
      this.#wakeUp = undefined;
    }
  }
}
