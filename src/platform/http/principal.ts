/** Who is calling: an API key of a project, a dashboard session, or nobody. */
import type { AuthMethod, KeyMode, ProjectStatus, Role } from '../db/tables.js';

export interface KeyPrincipal {
  readonly kind: 'key';
  readonly keyId: string;
  readonly projectId: string;
  readonly organizationId: string;
  readonly projectStatus: ProjectStatus;
  readonly mode: KeyMode;
  readonly scopes: ReadonlySet<string>;
  /**
   * Set when a person acts on an API-key route from the web dashboard (src/web/): the member and
   * session behind the request. `keyId` is then the session's ID and `scopes` those of the role.
   */
  readonly dashboard?: SessionPrincipal;
  /**
   * Set when an OAuth access token (`pho_...`, src/oauth/) authenticated the request: a client
   * acting for a person, limited to the scopes and the project of the person's consent. `keyId`
   * is then the grant's ID (`grt_...`), which rate limits and message records name.
   */
  readonly oauth?: OAuthActor;
}

/** The client and the person behind a request made with an OAuth access token. */
export interface OAuthActor {
  readonly clientId: string;
  readonly clientName: string;
  readonly grantId: string;
  /** The member who consented, and on whose behalf the client acts. */
  readonly userId: string;
  readonly userEmail: string;
}

/**
 * A person signed in to the dashboard (auth/session/). `projectId` is the project this request
 * acts on: the session's default, or the one `X-Posthorn-Project-ID` selected (always of the
 * session's organization). `role` is the member's role now, read on every request.
 */
export interface SessionPrincipal {
  readonly kind: 'session';
  readonly sessionId: string;
  readonly userId: string;
  readonly email: string;
  readonly organizationId: string;
  readonly role: Role;
  readonly authMethod: AuthMethod;
  readonly projectId: string;
  readonly projectStatus: ProjectStatus;
  /**
   * The organization requires two-factor authentication of owners and admins, this person is one
   * and has no authenticator on: administrative permissions are refused (members/permissions.ts).
   */
  readonly twoFactorMissing?: boolean;
}

export interface Anonymous {
  readonly kind: 'none';
}

export type Principal = KeyPrincipal | SessionPrincipal | Anonymous;

export function requireSession(principal: Principal): SessionPrincipal {
  if (principal.kind !== 'session')
    throw new Error('route declared auth "session" but has no session principal');
  return principal;
}

export function requireKey(principal: Principal): KeyPrincipal {
  if (principal.kind !== 'key') throw new Error('route declared auth "key" but has no key principal');
  return principal;
}
