/**
 * The master key file: 32 random bytes, hex, mode 0600, created on first start. It encrypts DKIM
 * keys and credentials at rest; losing it makes them unreadable, so it is never rewritten.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export function masterKeyPath(dataDir: string, configured: string): string {
  return path.resolve(configured || path.join(dataDir, 'master.key'));
}

/** Reads the key, creating it when absent. `created` tells the caller to say where it was written. */
export function ensureMasterKey(file: string): { key: Buffer; created: boolean } {
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return { key: readMasterKey(file), created: true };
  }
  return { key: readMasterKey(file), created: false };
}

export function readMasterKey(file: string): Buffer {
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/i.test(text)) throw new Error(`master key file ${file} must hold 64 hex characters`);
  return Buffer.from(text, 'hex');
}
