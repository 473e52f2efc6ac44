/**
 * How a session's client is shown to its person (the sessions list, the notice mails): the network
 * it came from, not the address (an IPv4 address to its /24, IPv6 to its /48), and the class of
 * its user agent ("Firefox on Windows", "curl"), not the whole string. Enough to recognise one's
 * own devices; little to give away if a mail or a screen is seen by someone else.
 */
import Bowser from 'bowser';
import { truncateIp } from '../../platform/ip-prefix.js';

/** `203.0.113.7` → `203.0.113.0/24` (platform/ip-prefix.ts). */
export const networkOf = truncateIp;

/**
 * The kind of client a user agent names: "Chrome on Linux", "Safari on iOS", or for a tool the
 * first product token ("curl"). Null when there is no user agent.
 */
export function clientClass(userAgent: string | null): string | null {
  if (userAgent === null || userAgent.trim() === '') return null;
  const parsed = Bowser.parse(userAgent);
  const browser = parsed.browser.name;
  const os = parsed.os.name;
  if (browser) return os ? `${browser} on ${os}` : browser;
  const product = /^[A-Za-z][\w.-]{0,39}/.exec(userAgent.trim())?.[0];
  return product ?? 'Unknown client';
}
