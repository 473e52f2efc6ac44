/**
 * OAuth's refusals, one class per error code of the RFCs, each with its HTTP status: the token,
 * revocation and registration endpoints answer them as RFC 6749 §5.2 bodies (`error`,
 * `error_description`) with `Cache-Control: no-store`; the consent routes send the redirectable
 * ones back to the client's redirect URI. `error_description` is a sentence for the developer,
 * never a secret.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'rate_limited';

export function describable(text: string): string {
  return text
    .replace(/["\\]/g, "'")
    .replace(/§/g, 'section ')
    .replace(/[^\x20-\x7e]/g, '');
}

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly status: number;
  readonly headers: Record<string, string> = {};

  constructor(code: OAuthErrorCode, status: number, description: string) {
    super(description);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }

  /** RFC 6749 §5.2; the description within the characters it allows (%x20-21 / %x23-5B / %x5D-7E). */
  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: describable(this.message) };
  }
}

/** RFC 6749 §5.2: a parameter missing, repeated, malformed or of an unsupported value. */
export class InvalidRequest extends OAuthError {
  constructor(description: string) {
    super('invalid_request', 400, description);
  }
}

/**
 * RFC 6749 §5.2: unknown client, no client authentication, or a wrong one: 401, and when the
 * client tried HTTP Basic, a `WWW-Authenticate: Basic` challenge.
 */
export class InvalidClient extends OAuthError {
  constructor(description: string, basicRealm?: string) {
    super('invalid_client', 401, description);
    if (basicRealm !== undefined)
      this.headers['WWW-Authenticate'] = `Basic realm="${basicRealm}", error="invalid_client"`;
  }
}

/** RFC 6749 §5.2: the code or refresh token is unknown, expired, spent, revoked or another client's. */
export class InvalidGrant extends OAuthError {
  constructor(description: string) {
    super('invalid_grant', 400, description);
  }
}

export class UnauthorizedClient extends OAuthError {
  constructor(description: string) {
    super('unauthorized_client', 400, description);
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor(description: string) {
    super('unsupported_grant_type', 400, description);
  }
}

export class InvalidScope extends OAuthError {
  constructor(description: string) {
    super('invalid_scope', 400, description);
  }
}

/** RFC 6749 §4.1.2.1: the person (or policy) said no. */
export class AccessDenied extends OAuthError {
  constructor(description: string) {
    super('access_denied', 403, description);
  }
}

export class UnsupportedResponseType extends OAuthError {
  constructor(description: string) {
    super('unsupported_response_type', 400, description);
  }
}

/** RFC 7591 §3.2.2: a redirect URI that may not be registered. */
export class InvalidRedirectUri extends OAuthError {
  constructor(description: string) {
    super('invalid_redirect_uri', 400, description);
  }
}

/** RFC 7591 §3.2.2: any other metadata that may not be registered. */
export class InvalidClientMetadata extends OAuthError {
  constructor(description: string) {
    super('invalid_client_metadata', 400, description);
  }
}

/** Not an RFC code (RFC 6749 §8.5 lets servers add codes): too many requests; `Retry-After` says when. */
export class RateLimited extends OAuthError {
  constructor(description: string, retryAfterSeconds: number) {
    super('rate_limited', 429, description);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}
