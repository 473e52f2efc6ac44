/**
 * Consent (spec §4.7, §5 rule 7): the dashboard's consent page asks what to show
 * (`authorize-context`), and a signed-in member approves (`authorize`: a single-use code) or
 * declines (`deny`). The request is checked in RFC 6749 §4.1.2.1's order: the client and the exact
 * redirect URI first, whose failures go to the person as a 400 and never to an unverified URI;
 * then the response type, PKCE (S256), the scopes and the member's right to connect applications,
 * whose failures go back to the client's redirect URI with `state` and `iss` (RFC 9207).
 *
 * The grant is for the session's selected project (`X-Posthorn-Project-ID`); connecting an
 * application is handing it a credential, so it takes the roles that manage API keys.
 */
import type { AuditService } from '../../audit/service.js';
import { can, PERMISSIONS } from '../../members/permissions.js';
import { badRequest } from '../../platform/http/errors.js';
import type { SessionPrincipal } from '../../platform/http/principal.js';
import type { ProjectService } from '../../projects/service.js';
import { AccessDenied, InvalidRequest, OAuthError, UnsupportedResponseType } from '../errors.js';
import { checkChallenge } from '../helpers/pkce.js';
import { isRegisteredUri, withParams } from '../helpers/redirect-uri.js';
import { formatScope, requestedScopes } from '../helpers/scope.js';
import { hashSecret, newCode } from '../helpers/secrets.js';
import type { ClientRow, OAuthStore } from '../store.js';

export interface AuthorizationParams {
  readonly client_id?: string | undefined;
  readonly redirect_uri?: string | undefined;
  readonly response_type?: string | undefined;
  readonly code_challenge?: string | undefined;
  readonly code_challenge_method?: string | undefined;
  readonly scope?: string | undefined;
  readonly state?: string | undefined;
}

/** A refusal that goes back to the client, at `redirectTo`. */
export class Redirectable extends Error {
  constructor(
    readonly error: OAuthError,
    readonly redirectTo: string,
  ) {
    super(error.message);
    this.name = 'Redirectable';
  }
}

export interface AuthorizationDeps {
  readonly store: OAuthStore;
  readonly projects: Pick<ProjectService, 'get'>;
  readonly audit: AuditService;
  readonly issuer: string;
  readonly codeLifetimeMs: number;
}

interface Checked {
  readonly client: ClientRow;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly scopes: string[];
  readonly state: string | undefined;
}

export function authorizationActions(deps: AuthorizationDeps) {
  const { store, issuer } = deps;

  /** The client and the redirect URI: a failure here is the person's 400. */
  async function checkClient(
    params: AuthorizationParams,
  ): Promise<{ client: ClientRow; redirectUri: string }> {
    if (!params.client_id)
      throw badRequest('client_id is required.', [{ path: 'client_id', message: 'is required' }]);
    const client = await store.findClient(params.client_id);
    if (!client)
      throw badRequest(
        `No client ${params.client_id} is registered; the application must register at /oauth/register first.`,
        [{ path: 'client_id', message: 'is not a registered client' }],
      );
    const redirectUri = params.redirect_uri;
    if (!redirectUri)
      throw badRequest('redirect_uri is required.', [{ path: 'redirect_uri', message: 'is required' }]);
    if (!isRegisteredUri(JSON.parse(client.redirect_uris) as string[], redirectUri))
      throw badRequest(
        `redirect_uri ${redirectUri} is not one this client registered (they must match exactly); nothing was sent to it.`,
        [{ path: 'redirect_uri', message: 'is not a registered redirect URI of the client' }],
      );
    return { client, redirectUri };
  }

  async function check(params: AuthorizationParams, session: SessionPrincipal): Promise<Checked> {
    const { client, redirectUri } = await checkClient(params);
    try {
      if (!params.response_type) throw new InvalidRequest('response_type is required.');
      if (params.response_type !== 'code')
        throw new UnsupportedResponseType(
          `response_type ${params.response_type} is not supported; use code.`,
        );
      const challenge = checkChallenge(params.code_challenge, params.code_challenge_method);
      const scopes = requestedScopes(params.scope, client.scope);
      if (!can(session.role, 'api_keys:manage'))
        throw new AccessDenied(
          `Your role (${session.role}) may not connect applications; that takes one of: ${PERMISSIONS['api_keys:manage'].join(', ')}.`,
        );
      return { client, redirectUri, challenge, scopes, state: params.state };
    } catch (error) {
      if (error instanceof OAuthError) throw back(redirectUri, params.state, error);
      throw error;
    }
  }

  function back(redirectUri: string, state: string | undefined, error: OAuthError): Redirectable {
    const body = error.body();
    return new Redirectable(
      error,
      withParams(redirectUri, {
        error: body.error,
        error_description: body.error_description,
        state,
        iss: issuer,
      }),
    );
  }

  return {
    /** What the consent screen shows: the client, where it goes back to, the scopes, the project. */
    async context(params: AuthorizationParams, session: SessionPrincipal) {
      const checked = await check(params, session);
      const project = await deps.projects.get(session.projectId);
      if (!project) throw badRequest(`Project ${session.projectId} no longer exists.`);
      return {
        client: {
          client_id: checked.client.id,
          client_name: checked.client.name,
          software_id: checked.client.software_id,
          software_version: checked.client.software_version,
        },
        redirect_uri: checked.redirectUri,
        scopes: checked.scopes,
        scope: formatScope(checked.scopes),
        ...(checked.state === undefined ? {} : { state: checked.state }),
        project: { id: project.id, name: project.name, status: project.status },
        organization_id: session.organizationId,
        user: { id: session.userId, email: session.email },
      };
    },

    /** The member approves: a single-use code for the client, sent back with `state` and `iss`. */
    async approve(params: AuthorizationParams, session: SessionPrincipal): Promise<string> {
      const checked = await check(params, session);
      const now = Date.now();
      const code = newCode();
      await store.insertCode({
        code_hash: hashSecret(code),
        client_id: checked.client.id,
        user_id: session.userId,
        organization_id: session.organizationId,
        project_id: session.projectId,
        redirect_uri: checked.redirectUri,
        scopes: JSON.stringify(checked.scopes),
        code_challenge: checked.challenge,
        expires_at: now + deps.codeLifetimeMs,
        used_at: null,
        grant_id: null,
        created_at: now,
      });
      await deps.audit.record({
        action: 'oauth.authorize',
        organizationId: session.organizationId,
        projectId: session.projectId,
        target: checked.client.id,
        details: {
          client_name: checked.client.name,
          scopes: checked.scopes,
          redirect_uri: checked.redirectUri,
        },
      });
      return withParams(checked.redirectUri, { code, state: checked.state, iss: issuer });
    },

    /** The member declines: access_denied goes back to the client (RFC 6749 §4.1.2.1). */
    async deny(params: AuthorizationParams, session: SessionPrincipal): Promise<string> {
      try {
        const checked = await check(params, session);
        return back(checked.redirectUri, checked.state, new AccessDenied('The person declined the request.'))
          .redirectTo;
      } catch (error) {
        if (error instanceof Redirectable) return error.redirectTo;
        throw error;
      }
    },
  };
}

export type AuthorizationActions = ReturnType<typeof authorizationActions>;
