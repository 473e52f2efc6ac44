/**
 * A listener that could not bind: its port taken, an address not on this host, a port below 1024
 * without the capability. The message names the config key and what to do about it, so `serve`
 * prints one line instead of Node's stack trace, and the inbound probe says the same.
 *
 * @example
 *   throw new ListenError('server.listen', '127.0.0.1:8080', error); // error.code === 'EADDRINUSE'
 *   // "server.listen 127.0.0.1:8080: the address is already in use (another Posthorn? ...)"
 */
export class ListenError extends Error {
  constructor(key: string, address: string, cause: unknown) {
    super(`${key} ${address}: ${reason(key, cause)}`, { cause });
    this.name = 'ListenError';
  }
}

function reason(key: string, cause: unknown): string {
  switch ((cause as { code?: unknown }).code) {
    case 'EADDRINUSE':
      return `the address is already in use (another Posthorn, or another server?); stop what listens there or set ${key} to a free port.`;
    case 'EACCES':
      return `permission denied: a port below 1024 needs CAP_NET_BIND_SERVICE (the systemd unit grants it) or root; or set ${key} to a port above 1023.`;
    case 'EADDRNOTAVAIL':
      return `the address is not one of this host's; set ${key} to one of them, or to 0.0.0.0 or [::] for all.`;
    default:
      return cause instanceof Error ? cause.message : String(cause);
  }
}
