/**
 * Who acted, as an audit record names it: the actor's ID and kind, how it authenticated, and the
 * client address and user agent of the request (none for the CLI and for Posthorn itself).
 */
import { userInfo } from 'node:os';
import type { ActorKind } from '../platform/db/tables.js';
import type { Principal } from '../platform/http/principal.js';

export interface Actor {
  /** `usr_...` for a person, `key_...` for an API key, `phc_...` for an OAuth client, `cli` or `system`. */
  readonly id: string;
  readonly kind: ActorKind;
  /** `email_code`, `password`, `api_key`, `oauth`, `cli`, or null for Posthorn itself. */
  readonly authMethod: string | null;
  readonly ip: string | null;
  readonly userAgent: string | null;
  /**
   * An OAuth client's actor (`phc_...`, kind `oauth`) acts for a person: that user's ID, and the
   * grant its token belongs to (which services name as `key:<grant>`). Written into the record's
   * details as `on_behalf_of` and `grant_id`.
   */
  readonly onBehalfOf?: { readonly userId: string; readonly grantId: string };
}

/** The actor of an audit entry written as text by older callers (`cli`, `key:key_...`, `test`). */
export function actorFromText(text: string): Actor {
  if (text === 'cli' || text.startsWith('cli:')) return cliActor();
  if (text.startsWith('key:'))
    return { id: text.slice(4), kind: 'key', authMethod: 'api_key', ip: null, userAgent: null };
  return { id: text, kind: 'system', authMethod: null, ip: null, userAgent: null };
}

let osUser: string | undefined;

/** The operator at the command line: the OS account is what "authenticated" them. */
export function cliActor(): Actor {
  if (osUser === undefined) {
    try {
      osUser = userInfo().username;
    } catch {
      osUser = 'unknown';
    }
  }
  return {
    id: 'cli',
    kind: 'cli',
    authMethod: 'cli',
    ip: null,
    userAgent: `posthorn-cli (os user ${osUser})`,
  };
}

/** The actor behind an authenticated request. */
export function actorOf(
  principal: Principal,
  ip: string | null,
  userAgent: string | null,
): Actor | undefined {
  const agent = userAgent === null ? null : userAgent.slice(0, 512);
  if (principal.kind === 'key' && principal.oauth)
    return {
      id: principal.oauth.clientId,
      kind: 'oauth',
      authMethod: 'oauth',
      ip,
      userAgent: agent,
      onBehalfOf: { userId: principal.oauth.userId, grantId: principal.oauth.grantId },
    };
  if (principal.kind === 'key' && principal.dashboard) return actorOf(principal.dashboard, ip, userAgent);
  if (principal.kind === 'key')
    return { id: principal.keyId, kind: 'key', authMethod: 'api_key', ip, userAgent: agent };
  if (principal.kind === 'session')
    return { id: principal.userId, kind: 'session', authMethod: principal.authMethod, ip, userAgent: agent };
  return undefined;
}
