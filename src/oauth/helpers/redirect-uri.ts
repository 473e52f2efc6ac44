/**
 * Redirect URIs: what may be registered (RFC 8252 §7.3 and §8.3, OAuth 2.1 §2.3.1: `https`, or
 * `http` to the loopback interface for native apps and local agents; no fragment, no credentials)
 * and how a request's URI is matched against them (exact string comparison, OAuth 2.1 §4.1.1.3),
 * and how a response is sent back to one (RFC 6749 §4.1.2: its own query kept).
 */
import { isIP } from 'node:net';

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Why `uri` may not be registered, or undefined when it may. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.includes('#')) return `${uri} has a fragment; a redirect URI may not (RFC 6749 §3.1.2).`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URI.`;
  }
  if (url.username !== '' || url.password !== '')
    return `${uri} carries credentials; a redirect URI may not.`;
  if (url.protocol === 'https:') return url.hostname === '' ? `${uri} has no host.` : undefined;
  if (url.protocol === 'http:') {
    return isLoopbackHost(url.hostname)
      ? undefined
      : `${uri} uses http to a host other than the loopback interface; use https, or http://127.0.0.1:<port>/... for a native app (RFC 8252 §7.3).`;
  }
  return `${uri} uses ${url.protocol.replace(/:$/, '')}; only https, or http to the loopback interface, may be registered.`;
}

/** Exact match: a URI that differs by one character is not the registered one. */
export function isRegisteredUri(registered: readonly string[], uri: string): boolean {
  return registered.includes(uri);
}

/** `uri` with `params` added to its query (kept as it was), undefined values left out. */
export function withParams(uri: string, params: Readonly<Record<string, string | undefined>>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  return url.toString();
}
