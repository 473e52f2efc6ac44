/**
 * Field formats shared by the config sections: addresses, durations, and the `secret` mark that
 * `posthorn config print` redacts.
 */
import { isIP } from 'node:net';
import { z } from 'zod';

export const hostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:8080 or [::1]:8080');
export const ipPort = z
  .string()
  .regex(
    /^(\[[0-9a-fA-F:.]+\]|\d{1,3}(\.\d{1,3}){3}):\d{1,5}$/,
    'must be an IP address and port, e.g. 127.0.0.1:53 or [::1]:53 (resolvers are addressed by IP)',
  );
/** One IPv4 or IPv6 address: no prefix length, port or host name. */
export const ipAddress = z
  .string()
  .refine(
    (value) => isIP(value) !== 0,
    'must be an IP address, e.g. 192.0.2.10 or 2001:db8::10 (no /prefix)',
  );
export const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h|d)$/, 'must be a duration like "500ms", "30s", "5m", "4h" or "4d"');
export const secret = { secret: true } as const;
