/** Splits the config's `host:port` / `[v6]:port` strings. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export function parseHostPort(value: string): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  if (!match) throw new Error(`not a host:port: ${value}`);
  return { host: (match[1] ?? match[2]) as string, port: Number(match[3]) };
}

/** Formats an address for a URL: IPv6 in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
