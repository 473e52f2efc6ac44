/**
 * The status tests' world: the real server (test/helpers/server.ts), and the real `posthorn admin`
 * command run against the same store (data directory, or PostgreSQL database), as an operator runs
 * it beside a running server.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BIN } from '../helpers/cli.js';
import type { Posthorn } from '../helpers/server.js';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `bin/posthorn admin ...` with a config naming the server's data directory. */
export function admin(ph: Posthorn, args: readonly string[]): CliRun {
  const file = path.join(ph.dataDir, 'cli.toml');
  // The server's store: its data directory, and on PostgreSQL its database.
  const { engine, url } = ph.config.storage;
  const database = engine === 'postgresql' ? `engine = "postgresql"\nurl = ${JSON.stringify(url)}\n` : '';
  writeFileSync(
    file,
    `[storage]\ndata_dir = ${JSON.stringify(ph.dataDir)}\nsynchronous = "normal"\n${database}`,
  );
  const env: Record<string, string | undefined> = { ...process.env, POSTHORN_LOG_LEVEL: 'warn' };
  for (const key of Object.keys(env))
    if (key.startsWith('POSTHORN_') && key !== 'POSTHORN_LOG_LEVEL') delete env[key];
  const result = spawnSync(BIN, ['admin', ...args, '--config', file], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** As `admin`, parsing `--json` output; throws with stderr when the command fails. */
export function adminJson<T = any>(ph: Posthorn, args: readonly string[]): T {
  const result = admin(ph, [...args, '--json']);
  if (result.code !== 0)
    throw new Error(`posthorn admin ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
