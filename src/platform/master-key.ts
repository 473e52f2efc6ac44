/**
 * The master key file: 32 random bytes, hex, mode 0600. It encrypts DKIM keys and credentials at
 * rest; losing it makes them unreadable, so it is never rewritten, and a new one is created only
 * while the database holds nothing sealed: a fresh key beside sealed values would boot, then fail
 * every signature. A missing, malformed or wrong key file stops the boot instead (exit 2).
 * Processes started at once on a fresh install all end with the one key that was linked in first.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

/** One kind of value sealed under the master key; `open` unseals a stored one (throws if it cannot). */
export interface SealedSample {
  /** What it is, for the message, e.g. "DKIM private keys (domain dom_...)". */
  readonly what: string;
  readonly open?: (key: Buffer) => unknown;
}

/** The master key cannot be used: a configuration error, exit code 2. */
export class MasterKeyError extends Error {
  override readonly name = 'MasterKeyError';
}

export function masterKeyPath(dataDir: string, configured: string): string {
  return path.resolve(configured || path.join(dataDir, 'master.key'));
}

/**
 * Reads the key, creating it when absent and nothing is sealed yet, and proves it opens one value
 * of each sealed kind. `created` tells the caller to say where it was written.
 *
 * @example
 * const { key, created } = openMasterKey('/var/lib/posthorn/master.key', await sealedSamples(db, engine));
 */
export function openMasterKey(
  file: string,
  sealed: readonly SealedSample[],
): { key: Buffer; created: boolean } {
  removeStrayTemporaries(file);
  if (!existsSync(file)) {
    if (sealed.length > 0) {
      throw new MasterKeyError(
        `the master key file ${file} is missing, but the database holds values sealed with it: ` +
          `${sealed.map((sample) => sample.what).join('; ')}. Restore the file from your backup (or set ` +
          'security.master_key_file to where it is); a new key could not open them, so none is created.',
      );
    }
    // Directories it creates (security.master_key_file may lie outside the data directory) are
    // 0700 whatever the umask; an existing one is the operator's and keeps its mode.
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const created = createKeyFile(file);
    return { key: readMasterKey(file), created };
  }
  const key = readMasterKey(file);
  for (const sample of sealed) {
    try {
      sample.open?.(key);
    } catch {
      throw new MasterKeyError(
        `the master key in ${file} does not open the ${sample.what} in the database: it is not the key ` +
          'they were sealed with. Restore the right file from your backup (or set security.master_key_file to it).',
      );
    }
  }
  return { key, created: false };
}

/**
 * Writes a new key to `file` unless another process (two commands started at once on a fresh
 * install) got there first; whether this one did. The key is written and synced under a temporary
 * name, then hard-linked to `file`: exactly one link wins, and a reader never sees a partial file
 * (with `open(wx)` a loser could read it empty, between the winner's open and its write).
 */
function createKeyFile(file: string): boolean {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  syncDirectory(dir);
  return true;
}

/** A temporary key file younger than this may still be a creator's at work, whatever its PID says. */
const STRAY_AFTER_MS = 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files `createKeyFile` left when its process died between writing one and
 * removing it (a crash, a SIGKILL): each holds a key that was never used, and secret material must
 * not lie about. A file is a stray when the process named in it is gone or it is over a minute old;
 * one a live process is still writing (a concurrent first start) is left to it.
 */
function removeStrayTemporaries(file: string): void {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // no directory yet: nothing was ever written there
  }
  for (const name of names) {
    const match = name.startsWith(prefix) ? /^(\d+)\.[0-9a-f]+\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (!match) continue;
    const temp = path.join(dir, name);
    try {
      const old = Date.now() - statSync(temp).mtimeMs > STRAY_AFTER_MS;
      if (old || !alive(Number(match[1]))) rmSync(temp, { force: true });
    } catch {
      // Removed meanwhile by its own process: nothing to do.
    }
  }
}

/** Makes the new name durable: a crash must not lose a key that values are about to be sealed with. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function readMasterKey(file: string): Buffer {
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text))
    throw new MasterKeyError(`master key file ${file} must hold 64 hex characters`);
  return Buffer.from(text, 'hex');
}
