/**
 * How the listener refuses: an Error with `responseCode`, smtp-server's convention for a handler's
 * reply. smtp-server adds the enhanced status code (RFC 3463) from its own table of reply codes;
 * a refusal whose code means something else there starts its text with its own, which
 * `connections.ts` sends instead (452 is "4.2.2 mailbox full" in that table).
 */

export type SmtpError = Error & { readonly responseCode: number };

export function smtpError(code: number, message: string, enhancedCode?: string): SmtpError {
  const text = enhancedCode === undefined ? message : `${enhancedCode} ${message}`;
  return Object.assign(new Error(text), { responseCode: code });
}

/** errno codes of a disk or quota that has no room left for the spool file. */
const STORAGE_FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * The reply to a transaction whose message could not be spooled, always a temporary failure so
 * that the client keeps the message and tries again: no room on the disk (or in the quota) is
 * 452 4.3.1, insufficient system storage (RFC 5321 §4.2.3, RFC 3463 X.3.1 "mail system full"), so
 * the sender's logs name what the operator has to fix; anything else is 451 4.3.0, a local error.
 */
export function spoolFailure(error: unknown): SmtpError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && STORAGE_FULL.has(code))
    return smtpError(452, 'Insufficient system storage, try again later', '4.3.1');
  return smtpError(451, 'Local error storing the message, try again later', '4.3.0');
}
