/**
 * Whether an error means the store's disk (or quota) has no room: SQLite's SQLITE_FULL (and an
 * I/O error whose cause is ENOSPC), PostgreSQL's disk_full (53100), or a file write's ENOSPC or
 * EDQUOT. Such a failure is temporary: the request is answered 503 and nothing was stored.
 */
const CODES = new Set(['SQLITE_FULL', '53100', 'ENOSPC', 'EDQUOT']);

export function isStorageFull(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && CODES.has(code)) return true;
    if (
      typeof code === 'string' &&
      code.startsWith('SQLITE_IOERR') &&
      /disk|full|space/i.test(String(message))
    )
      return true;
    e = cause;
  }
  return false;
}
