/**
 * The logger handed to smtp-server. smtp-server logs every command line it reads with its
 * connection id, which is how the listener counts commands per session (`max_commands`); its
 * warnings and errors go to Posthorn's log one level down (a client's misbehaviour is not ours).
 * Everything else it says is dropped: it would log every line of every session.
 */
import type { SMTPServerOptions } from 'smtp-server';
import type { Logger } from '../../platform/log.js';

export function smtpLogger(
  log: Logger,
  onCommand: (connectionId: string) => void,
): SMTPServerOptions['logger'] {
  const logger = {
    debug(entry: { tnx?: string; cid?: string } | undefined) {
      if (entry?.tnx === 'command' && entry.cid !== undefined) onCommand(entry.cid);
    },
    trace() {},
    info() {},
    warn(entry: unknown, message: string) {
      log.debug({ smtp: entry }, message);
    },
    error(entry: unknown, message: string) {
      log.warn({ smtp: entry }, message);
    },
    fatal(entry: unknown, message: string) {
      log.error({ smtp: entry }, message);
    },
  };
  return logger as unknown as SMTPServerOptions['logger'];
}
