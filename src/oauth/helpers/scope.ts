/**
 * Scopes of OAuth grants are the API key scopes (DESIGN.md §4, src/auth/scopes.ts), written
 * space-separated (RFC 6749 §3.3). `full_access` contains every other scope, so a client granted
 * it may ask for any narrower set. A token never carries more than its grant; a grant never more
 * than the client registered for.
 */
import { SCOPES, unknownScope } from '../../auth/scopes.js';
import { InvalidScope } from '../errors.js';

export const SUPPORTED_SCOPES = SCOPES;

/** Distinct scope tokens of a `scope` parameter, in order; empty for none. */
export function parseScope(text: string | null | undefined): string[] {
  if (!text) return [];
  return [...new Set(text.split(' ').filter((token) => token !== ''))];
}

export const formatScope = (scopes: readonly string[]): string => scopes.join(' ');

/** Whether every scope of `wanted` is within `held` (`full_access` holds them all). */
export function within(wanted: readonly string[], held: readonly string[]): boolean {
  if (held.includes('full_access')) return true;
  return wanted.every((scope) => held.includes(scope));
}

/** Throws invalid_scope naming the first scope that is not an API key scope. */
export function checkKnown(scopes: readonly string[]): void {
  const unknown = unknownScope(scopes);
  if (unknown !== undefined)
    throw new InvalidScope(
      `"${unknown}" is not a scope of this server; see scopes_supported in its metadata.`,
    );
}

/**
 * The scopes an authorization request asks for: the `scope` parameter, or without one the scopes
 * the client registered (RFC 6749 §3.3 lets a server use a default); each known, and within the
 * client's registration when it registered any.
 */
export function requestedScopes(scope: string | undefined, registered: string | null): string[] {
  const asked = parseScope(scope);
  const allowed = parseScope(registered);
  if (asked.length === 0) {
    if (allowed.length === 0)
      throw new InvalidScope('scope is required: name the API scopes the client needs (e.g. "emails:send").');
    return allowed;
  }
  checkKnown(asked);
  if (allowed.length > 0 && !within(asked, allowed))
    throw new InvalidScope(`The client registered for "${formatScope(allowed)}" only.`);
  return asked;
}

/** The scopes a token request narrows to (RFC 6749 §6): a subset of `held`, or `held` itself. */
export function narrowedScopes(scope: string | undefined, held: readonly string[]): string[] {
  const asked = parseScope(scope);
  if (asked.length === 0) return [...held];
  checkKnown(asked);
  if (!within(asked, held))
    throw new InvalidScope(`The grant holds "${formatScope(held)}"; a token may only narrow it.`);
  return asked;
}
