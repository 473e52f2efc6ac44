/**
 * Field formats shared by the config sections: addresses, durations, and the `secret` mark that
 * `posthorn config print` redacts.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseDuration } from '../duration.js';

const hostPortShape = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/;

/** `host:port` or `[v6]:port`, split; undefined when the shape is wrong. */
function splitHostPort(value: string): { host: string; port: number; bracketed: boolean } | undefined {
  const match = hostPortShape.exec(value);
  if (!match) return undefined;
  return {
    host: (match[1] ?? match[2]) as string,
    port: Number(match[3]),
    bracketed: match[1] !== undefined,
  };
}

export const hostPort = z.string().superRefine((value, ctx) => {
  const parts = splitHostPort(value);
  if (!parts)
    ctx.addIssue({ code: 'custom', message: 'must be host:port, e.g. 127.0.0.1:8080 or [::1]:8080' });
  else if (parts.port > 65535) ctx.addIssue({ code: 'custom', message: `port ${parts.port} is above 65535` });
  else if (parts.bracketed && isIP(parts.host) !== 6)
    ctx.addIssue({ code: 'custom', message: `[${parts.host}] is not an IPv6 address` });
  else if (/^[\d.]+$/.test(parts.host) && isIP(parts.host) !== 4)
    ctx.addIssue({ code: 'custom', message: `${parts.host} is not an IPv4 address` });
});

export const ipPort = z.string().superRefine((value, ctx) => {
  const parts = splitHostPort(value);
  const ipVersion = parts ? isIP(parts.host) : 0;
  if (!parts || ipVersion === 0 || (ipVersion === 6) !== parts.bracketed)
    ctx.addIssue({
      code: 'custom',
      message:
        'must be an IP address and port, e.g. 127.0.0.1:53 or [::1]:53 (resolvers are addressed by IP)',
    });
  else if (parts.port < 1 || parts.port > 65535)
    ctx.addIssue({ code: 'custom', message: `port ${parts.port} is not between 1 and 65535` });
});

/** One IPv4 or IPv6 address: no prefix length, port or host name. */
export const ipAddress = z
  .string()
  .refine(
    (value) => isIP(value) !== 0,
    'must be an IP address, e.g. 192.0.2.10 or 2001:db8::10 (no /prefix)',
  );

/** An absolute http:// or https:// URL with a host, e.g. `https://mail.example.com`. */
export const httpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}, 'must be an absolute http:// or https:// URL, e.g. https://mail.example.com');

/** Node's timers wait at most 2^31-1 ms (about 24.8 days); a longer delay fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** Ten years: further out, times computed from a duration stop being dates an ISO string can hold. */
const MAX_DURATION_MS = 3650 * 86_400_000;

/**
 * A duration like "500ms", "30s", "5m", "4h" or "4d". `min` is the shortest one allowed ("1ms"
 * for one that must not be zero); `timer` marks a duration a Node timer waits for, which cannot be
 * longer than `MAX_TIMER_MS`.
 *
 * @example duration({ min: '1ms', timer: true }).default('1s')
 */
export function duration(options: { readonly min?: string; readonly timer?: boolean } = {}) {
  const minMs = options.min === undefined ? 0 : parseDuration(options.min);
  const maxMs = options.timer ? MAX_TIMER_MS : MAX_DURATION_MS;
  return z.string().superRefine((value, ctx) => {
    if (!/^\d+(ms|s|m|h|d)$/.test(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be a duration like "500ms", "30s", "5m", "4h" or "4d"' });
      return;
    }
    const ms = parseDuration(value);
    if (ms < minMs)
      ctx.addIssue({
        code: 'custom',
        message: minMs === 1 ? 'must be longer than 0' : `must be at least ${options.min}`,
      });
    else if (ms > maxMs)
      ctx.addIssue({
        code: 'custom',
        message: options.timer
          ? `must be at most ${MAX_TIMER_MS}ms (about 24.8 days): a Node timer fires at once when asked to wait longer`
          : 'must be at most 3650d',
      });
  });
}
export const secret = { secret: true } as const;
