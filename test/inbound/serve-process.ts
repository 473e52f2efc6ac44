/**
 * The real `posthorn serve` process for inbound tests that kill it (SIGKILL) to prove what
 * survives a crash, or give it a spool disk that fills up: a free port, a config file, and
 * waiting for a port to open.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { BIN } from '../helpers/cli.js';

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function waitForPort(port: number, deadline = Date.now() + 20_000): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Writes `config.toml` in `dataDir` for a serve process with inbound SMTP on `smtpPort`, no
 * delivery, `dns` as its resolver (a black hole stalls the processing of received mail) and clamd
 * on `clamdPort`, and starts it. `exited` resolves with the signal that ended it.
 *
 * With `spoolDiskBytes` the spool directory is a tmpfs of that size seen by the process alone (a
 * disk that fills up): the process runs in a user and mount namespace of its own (unshare(1), no
 * root needed where unprivileged user namespaces are allowed); the test sees the spool through
 * `/proc/<pid>/root` (`spoolSeenBy`).
 */
export async function spawnServe(options: {
  readonly dataDir: string;
  readonly smtpPort: number;
  readonly dns: string;
  readonly clamdPort: number;
  readonly spoolDiskBytes?: number;
  /** `dns.timeout_ms` (5000 unless given): a long one makes a black hole hold processing longer. */
  readonly dnsTimeoutMs?: number;
  /** `smtp_in.workers` (the default, 1, unless given); 0 analyses received mail on the main thread. */
  readonly workers?: number;
  /** The PostgreSQL database to store in (`stoppedSetup`'s), else the data dir's SQLite file. */
  readonly database?: string | undefined;
}): Promise<{ child: ChildProcess; exited: Promise<NodeJS.Signals | null>; stderr: () => string }> {
  const configFile = join(options.dataDir, 'config.toml');
  writeFileSync(
    configFile,
    [
      '[server]',
      `listen = "127.0.0.1:${await freePort()}"`,
      '[storage]',
      `data_dir = "${options.dataDir}"`,
      'synchronous = "full"',
      ...(options.database === undefined
        ? []
        : ['engine = "postgresql"', `url = "${options.database}"`, 'pool_size = 4']),
      '[smtp_in]',
      'enabled = true',
      `listen = "127.0.0.1:${options.smtpPort}"`,
      ...(options.workers === undefined ? [] : [`workers = ${options.workers}`]),
      '[delivery]',
      'enabled = false',
      '[dns]',
      `servers = ["${options.dns}"]`,
      `timeout_ms = ${options.dnsTimeoutMs ?? 5000}`,
      '[clamav]',
      `port = ${options.clamdPort}`,
      '[log]',
      'level = "silent"',
    ].join('\n'),
  );
  const serve = [BIN, 'serve', '--config', configFile];
  const command = options.spoolDiskBytes === undefined ? serve : onSmallSpoolDisk(options, serve);
  // The test's own POSTHORN_ variables (POSTHORN_TEST_ENGINE, ...) are no keys of the server's config.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('POSTHORN_')));
  const child = spawn(command[0] as string, command.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  return { child, exited, stderr: () => stderr };
}

/** `serve` run with a tmpfs of `spoolDiskBytes` mounted on the spool directory, for it alone. */
function onSmallSpoolDisk(
  options: { readonly dataDir: string; readonly spoolDiskBytes?: number },
  serve: readonly string[],
): string[] {
  const spool = join(options.dataDir, 'inbound', 'spool');
  mkdirSync(spool, { recursive: true, mode: 0o700 });
  const mount = 'mount -t tmpfs -o "size=$0,mode=700" posthorn-spool "$1" && shift && exec "$@"';
  return [
    'unshare',
    '--user',
    '--map-root-user',
    '--mount',
    'sh',
    '-c',
    mount,
    String(options.spoolDiskBytes),
    spool,
    ...serve,
  ];
}

/** The spool directory as the process `pid` sees it (its own mounts included). */
export function spoolSeenBy(pid: number, dataDir: string): string {
  return join(`/proc/${pid}/root`, dataDir, 'inbound', 'spool');
}
