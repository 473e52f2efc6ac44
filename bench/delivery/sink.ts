/**
 * The MX of the delivery benchmark: Postfix's `smtp-sink` (C, one process) on loopback, so the
 * receiving side costs little CPU and the same for Posthorn and Postfix. Its `-c` counter line
 * ("... mesg=N") is read from stdout and time-stamped, which gives the first and last delivery.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface Sink {
  readonly port: number;
  /** Messages received so far. */
  readonly count: number;
  /** Resolves with the time (performance.now) at which the sink's count reached `n`. */
  waitFor(n: number, timeoutMs: number): Promise<number>;
  /** performance.now() when the count first reached `n` (undefined if not yet). */
  at(n: number): number | undefined;
  stop(): Promise<void>;
}

export async function startSink(port: number): Promise<Sink> {
  const child: ChildProcess = spawn('smtp-sink', ['-c', '-u', 'nobody', `127.0.0.1:${port}`, '1024'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let count = 0;
  const times = new Map<number, number>();
  const waiters = new Set<() => void>();
  let buffer = '';
  child.stdout?.setEncoding('latin1');
  child.stdout?.on('data', (chunk: string) => {
    const now = performance.now();
    buffer += chunk;
    const parts = buffer.split(/[\r\n]/);
    buffer = parts.pop() ?? '';
    for (const part of parts) {
      const match = /mesg=(\d+)/.exec(part);
      if (!match) continue;
      const n = Number(match[1]);
      for (let i = count + 1; i <= n; i++) times.set(i, now);
      count = Math.max(count, n);
    }
    for (const wake of [...waiters]) wake();
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  if (child.exitCode !== null) throw new Error('smtp-sink did not start (apt-get install postfix)');
  return {
    port,
    get count() {
      return count;
    },
    at: (n) => times.get(n),
    waitFor(n, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const at = times.get(n);
          if (at === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(at);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`sink: ${count} of ${n} messages after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}
