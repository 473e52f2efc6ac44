/**
 * The data directory holds message bodies, received mail, key hashes and sealed secrets: only
 * Posthorn's own user may read it, whatever the umask (the README's quick start runs without
 * systemd's UMask=0077). A directory or database created by an older version, or under a loose
 * umask, is tightened at open. It never loosens a mode and never fails the open over one: a file it
 * may not chmod (another user's) is left as it is.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

/** Creates the data directory 0700, or takes group and other access away from an existing one. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  restrict(dir);
}

/**
 * Makes the database file 0600 (creating it empty if needed) before SQLite opens it; SQLite gives
 * the -wal and -shm files it creates the database file's mode, and existing ones are tightened.
 */
export function ensurePrivateDatabase(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  for (const path of [file, `${file}-wal`, `${file}-shm`]) restrict(path);
}

function restrict(path: string): void {
  try {
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) chmodSync(path, mode & 0o700);
  } catch {
    // Missing (no -wal yet) or not ours to change.
  }
}
