/**
 * Shared by the benchmarks: medians, ratios, free ports, and a spawned process's readiness.
 * Benchmarks alternate the measured subject with its reference in one run (the host is noisy).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import path from 'node:path';

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

/** What one wrk run measured: requests per second, latency percentiles, and errors of any kind. */
export interface WrkResult {
  readonly rps: number;
  /** Requests completed in the run. */
  readonly requests: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

/**
 * Runs `wrk -t2 --latency` against `url` with a Lua `script` (null for plain GETs) and reads its
 * summary; non-2xx/3xx answers and socket errors both count as errors.
 */
export async function runWrk(
  url: string,
  options: { connections: number; seconds: number; script?: string },
): Promise<WrkResult> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const args = ['-t2', `-c${options.connections}`, `-d${options.seconds}s`, '--latency'];
  if (options.script) args.push('-s', options.script);
  const { stdout } = await promisify(execFile)('wrk', [...args, url], { maxBuffer: 1 << 20 });
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(stdout);
    if (!m) throw new Error(`wrk output without ${label}%:\n${stdout}`);
    const value = Number(m[1]);
    return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
  };
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const errors =
    Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0) +
    (socket?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0);
  const requests = Number(/(\d+) requests in /.exec(stdout)?.[1] ?? Number.NaN);
  return { rps, requests, p50: ms('50'), p99: ms('99'), errors };
}

/**
 * Writes `bench.toml` in `dataDir` for a server started with `bin/posthorn serve --config`: on
 * `port`, its data in `dataDir` (written with `synchronous` when given), neither inbound SMTP nor
 * delivery running, then the `more` lines (further sections). Returns the file's path.
 */
export function writeServeToml(
  dataDir: string,
  port: number,
  options: { readonly synchronous?: 'normal' | 'full'; readonly more?: readonly string[] } = {},
): string {
  const toml = path.join(dataDir, 'bench.toml');
  writeFileSync(
    toml,
    [
      '[server]',
      `listen = "127.0.0.1:${port}"`,
      '[storage]',
      `data_dir = "${dataDir}"`,
      ...(options.synchronous === undefined ? [] : [`synchronous = "${options.synchronous}"`]),
      '[smtp_in]',
      'enabled = false',
      '[delivery]',
      'enabled = false',
      ...(options.more ?? []),
      '',
    ].join('\n'),
  );
  return toml;
}

/**
 * The options every wrk benchmark takes (`--rounds`, `--duration` in seconds, `--connections`,
 * `--warmup` in seconds, `--synchronous` of the floor and the server), for its `parseArgs`.
 */
export function wrkOptions(durationSeconds = '15') {
  return {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: durationSeconds },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    synchronous: { type: 'string', default: 'full' },
  } as const;
}

/** The values of `wrkOptions`, as numbers and a `synchronous` mode. */
export function wrkSettings(values: {
  readonly rounds: string;
  readonly duration: string;
  readonly connections: string;
  readonly warmup: string;
  readonly synchronous: string;
}) {
  return {
    rounds: Number(values.rounds),
    duration: Number(values.duration),
    connections: Number(values.connections),
    warmup: Number(values.warmup),
    synchronous: values.synchronous === 'normal' ? ('normal' as const) : ('full' as const),
  };
}
