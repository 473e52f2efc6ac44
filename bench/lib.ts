/**
 * Shared by the benchmarks: medians, ratios, free ports, and a spawned process's readiness.
 * Benchmarks alternate the measured subject with its reference in one run (the host is noisy).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `--sizes 10,100` as a list of kilobyte sizes (non-positive entries dropped). */
export function parseSizes(value: unknown): number[] {
  return String(value)
    .split(',')
    .map(Number)
    .filter((kb) => kb > 0);
}

/** Per-round ratios of a subject's rate to its reference's (rounds matched by number). */
export function roundRatios(
  subject: readonly { round: number; rate: number }[],
  reference: readonly { round: number; rate: number }[],
): number[] {
  return subject.flatMap((s) => {
    const r = reference.find((row) => row.round === s.round);
    return r ? [s.rate / r.rate] : [];
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 200; returns ms since `start`. */
export async function waitReady(url: string, start: number, timeoutMs = 20_000): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - start;
    } catch {
      // not listening yet
    }
    if (performance.now() - start > timeoutMs) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Waits until something accepts TCP connections on 127.0.0.1:`port` (10 s at most). */
export async function waitForPort(port: number, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} is not listening on ${port}`);
}

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function spawnQuiet(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): ChildProcess {
  return spawn(command, args, { env, cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

export function fmt(ms: number): string {
  return `${ms.toFixed(0)} ms`;
}
