/**
 * The real `posthorn serve` process for the reliability suites: a config written from sections,
 * an organization bootstrapped by `posthorn admin bootstrap`, and a process that can be killed
 * (SIGKILL) and started again on the same data directory and ports. Its memory is read from
 * /proc (VmRSS now, VmHWM the peak), so a test measures the server, not itself.
 *
 * With `diskBytes` the data directory is a tmpfs of that size mounted for the whole machine (it
 * must outlive each killed process): this needs root, as the machine and CI run; anywhere else
 * the mount fails with a message saying so.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/cli.js';
import { createServer } from 'node:net';
import { waitForPort } from '../inbound/serve-process.js';

export type Sections = Record<string, Record<string, unknown>>;

/**
 * Serve processes still running, and data directories not yet disposed of: a runner that exits (or
 * is stopped, e.g. scripts/chaos interrupted) takes them with it.
 */
const live = new Set<ChildProcess>();
const dirs = new Map<string, boolean>(); // data directory → a tmpfs is mounted on it
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
  for (const [dir, mounted] of dirs) {
    if (mounted) spawnSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

function toml(sections: Sections): string {
  const lines: string[] = [];
  for (const [name, values] of Object.entries(sections)) {
    lines.push(`[${name}]`);
    for (const [key, value] of Object.entries(values)) lines.push(`${key} = ${JSON.stringify(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

export interface ServeProcess {
  readonly dataDir: string;
  readonly url: string;
  readonly httpPort: number;
  readonly smtpPort: number;
  readonly apiKey: string;
  readonly projectId: string;
  readonly organizationId: string;
  child(): ChildProcess | undefined;
  pid(): number | undefined;
  /** Starts the process (again) and waits until its HTTP port answers. */
  start(): Promise<void>;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
  /** Resident memory now and at its peak, in MB, of the running process. */
  memory(): { rssMb: number; peakMb: number };
  stderr(): string;
  /** Removes the data directory (and unmounts its tmpfs). */
  dispose(): Promise<void>;
}

export function mountTmpfs(dir: string, bytes: number): void {
  const result = spawnSync(
    'mount',
    ['-t', 'tmpfs', '-o', `size=${bytes},mode=700`, 'posthorn-reliability', dir],
    {
      encoding: 'utf8',
    },
  );
  if (result.status !== 0) {
    throw new Error(
      `A small data disk needs a tmpfs mounted on ${dir}, and mount failed (${(result.stderr || result.error?.message || '').trim()}). ` +
        'Run this suite as root (CI runs .ci/run as root), or with sudo.',
    );
  }
}

/**
 * A free port below the ephemeral range (32768 and up on Linux): the process is killed and started
 * again on the same ports, and a port of the ephemeral range can be taken in between as the local
 * end of any outgoing connection on the machine (the test's own included), so the restart fails.
 */
export async function restartablePort(): Promise<number> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * 22_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export async function spawnPosthorn(options: {
  readonly sections?: Sections;
  readonly diskBytes?: number;
  readonly smtp?: boolean;
  readonly env?: Record<string, string>;
}): Promise<ServeProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'posthorn-reliability-'));
  dirs.set(dataDir, false);
  if (options.diskBytes !== undefined) {
    mountTmpfs(dataDir, options.diskBytes);
    dirs.set(dataDir, true);
  }
  const httpPort = await restartablePort();
  const smtpPort = await restartablePort();
  const base: Sections = {
    server: { listen: `127.0.0.1:${httpPort}`, public_url: `http://127.0.0.1:${httpPort}` },
    storage: { data_dir: dataDir, synchronous: 'full' },
    smtp_in: { enabled: options.smtp === true, listen: `127.0.0.1:${smtpPort}` },
    delivery: { enabled: false },
    log: { level: 'warn' },
  };
  const merged: Sections = { ...base };
  for (const [name, values] of Object.entries(options.sections ?? {}))
    merged[name] = { ...merged[name], ...values };
  const configFile = join(dataDir, 'config.toml');
  writeFileSync(configFile, toml(merged));
  const env = { ...process.env, ...options.env };
  for (const key of Object.keys(env)) if (key.startsWith('POSTHORN_') && !options.env?.[key]) delete env[key];
  const boot = spawnSync(
    BIN,
    [
      'admin',
      'bootstrap',
      '--config',
      configFile,
      '--email',
      'owner@example.test',
      '--org',
      'Reliability',
      '--json',
    ],
    { encoding: 'utf8', env, timeout: 60_000 },
  );
  if (boot.status !== 0) throw new Error(`admin bootstrap: ${boot.stderr}`);
  const ids = JSON.parse(boot.stdout) as { api_key: string; project_id: string; organization_id: string };
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stderr = '';
  const proc: ServeProcess = {
    dataDir,
    url: `http://127.0.0.1:${httpPort}`,
    httpPort,
    smtpPort,
    apiKey: ids.api_key,
    projectId: ids.project_id,
    organizationId: ids.organization_id,
    child: () => child,
    pid: () => child?.pid,
    async start() {
      const started = spawn(BIN, ['serve', '--config', configFile], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env,
      });
      child = started;
      live.add(started);
      started.once('exit', () => live.delete(started));
      started.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-20_000);
      });
      exited = new Promise((resolve) => started.once('exit', () => resolve()));
      const failed = exited.then(() => {
        throw new Error(`serve exited during its start: ${stderr.slice(-2000)}`);
      });
      await Promise.race([waitForPort(httpPort, Date.now() + 90_000), failed]);
      if (options.smtp) await Promise.race([waitForPort(smtpPort, Date.now() + 90_000), failed]);
      failed.catch(() => {});
    },
    async kill() {
      child?.kill('SIGKILL');
      await exited;
      child = undefined;
    },
    async stop() {
      child?.kill('SIGTERM');
      await exited;
      child = undefined;
    },
    memory() {
      const pid = child?.pid;
      if (!pid) return { rssMb: 0, peakMb: 0 };
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
      return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
    },
    stderr: () => stderr,
    async dispose() {
      if (child) await proc.kill();
      if (options.diskBytes !== undefined) spawnSync('umount', ['-l', dataDir]);
      rmSync(dataDir, { recursive: true, force: true });
      dirs.delete(dataDir);
    },
  };
  return proc;
}
