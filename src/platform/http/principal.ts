/** Who is calling: an API key of a project, a dashboard session, or nobody. */
import type { KeyMode, ProjectStatus } from '../db/tables.js';

export interface KeyPrincipal {
  readonly kind: 'key';
  readonly keyId: string;
  readonly projectId: string;
  readonly organizationId: string;
  readonly projectStatus: ProjectStatus;
  readonly mode: KeyMode;
  readonly scopes: ReadonlySet<string>;
}

export interface SessionPrincipal {
  readonly kind: 'session';
  readonly sessionId: string;
  readonly userId: string;
  readonly organizationId: string;
  readonly projectId: string;
  readonly projectStatus: ProjectStatus;
}

export interface Anonymous {
  readonly kind: 'none';
}

export type Principal = KeyPrincipal | SessionPrincipal | Anonymous;

export function requireKey(principal: Principal): KeyPrincipal {
  if (principal.kind !== 'key') throw new Error('route declared auth "key" but has no key principal');
  return principal;
}
