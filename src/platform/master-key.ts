/**
 * The master key file: 32 random bytes, hex, mode 0600. It encrypts DKIM keys and credentials at
 * rest; losing it makes them unreadable, so it is never rewritten, and a new one is created only
 * while the database holds nothing sealed: a fresh key beside sealed values would boot, then fail
 * every signature. A missing, malformed or wrong key file stops the boot instead (exit 2).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

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
 * const { key, created } = openMasterKey('/var/lib/posthorn/master.key', await sealedSamples(db));
 */
export function openMasterKey(
  file: string,
  sealed: readonly SealedSample[],
): { key: Buffer; created: boolean } {
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
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return { key: readMasterKey(file), created: true };
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

export function readMasterKey(file: string): Buffer {
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text))
    throw new MasterKeyError(`master key file ${file} must hold 64 hex characters`);
  return Buffer.from(text, 'hex');
}
