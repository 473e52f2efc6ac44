/**
 * The load of the OAuth benchmark: POST /v1/emails with one bearer credential for a fixed time,
 * by wrk (Debian) when installed, else autocannon (npm), as bench/api.ts loads.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LoadResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

export async function hasWrk(): Promise<boolean> {
  try {
    await run('wrk', ['--version']);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== 'ENOENT';
  }
}

export interface Load {
  readonly url: string;
  readonly bearer: string;
  readonly body: string;
  readonly seconds: number;
  readonly connections: number;
  readonly dir: string;
  readonly wrk: boolean;
}

async function byWrk(load: Load): Promise<LoadResult> {
  const script = path.join(load.dir, 'post.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer ${load.bearer}"\nwrk.body = ${JSON.stringify(load.body)}\n`,
  );
  const { stdout } = await run(
    'wrk',
    [
      '-t2',
      `-c${load.connections}`,
      `-d${load.seconds}s`,
      '--latency',
      '-s',
      script,
      `${load.url}/v1/emails`,
    ],
    { maxBuffer: 1 << 20 },
  );
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(stdout);
    if (!m) throw new Error(`wrk output without ${label}%:\n${stdout}`);
    const value = Number(m[1]);
    return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
  };
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN),
    p50: ms('50'),
    p99: ms('99'),
    errors:
      Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0) +
      (socketErrors?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0),
  };
}

async function byAutocannon(load: Load): Promise<LoadResult> {
  // autocannon ships no types; this is the part of its result the benchmark reads.
  type Autocannon = (options: Record<string, unknown>) => Promise<{
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  }>;
  const autocannon = ((await import('autocannon' as string)) as { default: Autocannon }).default;
  const result = await autocannon({
    url: `${load.url}/v1/emails`,
    method: 'POST',
    connections: load.connections,
    duration: load.seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${load.bearer}` },
    body: load.body,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

export function load(options: Load): Promise<LoadResult> {
  return options.wrk ? byWrk(options) : byAutocannon(options);
}
