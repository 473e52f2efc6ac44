/** Runs the real `bin/posthorn` command in a temporary working directory. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';

export const BIN = path.resolve(import.meta.dirname, '../../../bin/posthorn');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Workdir {
  readonly dir: string;
  run(args: readonly string[], env?: Record<string, string>): CliResult;
  /** `run` without blocking the test's process: several can run at once. */
  runAsync(args: readonly string[], env?: Record<string, string>): Promise<CliResult>;
  /** Runs and parses stdout as JSON, failing the test with stderr when the command fails. */
  json<T = any>(args: readonly string[], env?: Record<string, string>): T;
  /** `json` without blocking the test's process. */
  jsonAsync<T = any>(args: readonly string[], env?: Record<string, string>): Promise<T>;
  spawn(args: readonly string[], env?: Record<string, string>): ReturnType<typeof spawn>;
}

/** `config: true` writes an empty config/config.toml (all defaults), as `posthorn serve` does on first start. */
export function workdir(t: ExecutionContext, options: { config?: boolean } = {}): Workdir {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  if (options.config) {
    mkdirSync(path.join(dir, 'config'));
    writeFileSync(path.join(dir, 'config/config.toml'), '');
  }
  const baseEnv = (env: Record<string, string> = {}) => {
    const clean = { ...process.env };
    for (const key of Object.keys(clean)) if (key.startsWith('POSTHORN_')) delete clean[key];
    return { ...clean, POSTHORN_LOG_LEVEL: 'warn', ...env };
  };
  const run = (args: readonly string[], env?: Record<string, string>): CliResult => {
    const result = spawnSync(BIN, args, { cwd: dir, env: baseEnv(env), encoding: 'utf8', timeout: 30_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const runAsync = (args: readonly string[], env?: Record<string, string>): Promise<CliResult> =>
    new Promise((resolve, reject) => {
      const child = spawn(BIN, args, { cwd: dir, env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  return {
    dir,
    run,
    runAsync,
    async jsonAsync(args, env) {
      const result = await runAsync(args, env);
      if (result.code !== 0)
        throw new Error(`posthorn ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
    json(args, env) {
      const result = run(args, env);
      if (result.code !== 0)
        throw new Error(`posthorn ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
    spawn: (args, env) =>
      spawn(BIN, args, { cwd: dir, env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }),
  };
}

/** `admin bootstrap` of an organization with its first project, as the CLI tests start; its project ID. */
export function bootstrapProject(w: Workdir): string {
  return w.json(['admin', 'bootstrap', '--email', 'a@example.test', '--org', 'Acme', '--json'])
    .project_id as string;
}

/** `bootstrapProject` without blocking the test's process. */
export async function bootstrapProjectAsync(w: Workdir): Promise<string> {
  return (await w.jsonAsync(['admin', 'bootstrap', '--email', 'a@example.test', '--org', 'Acme', '--json']))
    .project_id as string;
}
