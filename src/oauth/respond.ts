/**
 * How the RFC endpoints answer: token responses and errors never cached (RFC 6749 §5.1, §5.2),
 * errors as `{error, error_description}` bodies; the refusals the HTTP layer makes before a handler
 * runs (a body that does not parse, 413, 415) are given the RFC's code too.
 */
import type { AppError } from '../platform/http/errors.js';
import type { RouteResult } from '../platform/http/route.js';
import { InvalidClientMetadata, InvalidRedirectUri, InvalidRequest, OAuthError } from './errors.js';

export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

export function oauthResult(error: OAuthError): RouteResult {
  return { status: error.status, headers: { ...error.headers, ...NO_STORE }, body: error.body() };
}

/** Runs an RFC endpoint's handler, answering its OAuth refusals in the RFC's form. */
export async function answering(run: () => Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OAuthError) return oauthResult(error);
    throw error;
  }
}

function refusal(error: AppError, kind: 'registration' | 'token'): OAuthError {
  if (error.status === 400 && kind === 'registration') {
    const redirect = error.details?.some((detail) => detail.path.startsWith('redirect_uris'));
    return redirect ? new InvalidRedirectUri(error.message) : new InvalidClientMetadata(error.message);
  }
  if (error.status === 400) return new InvalidRequest(error.message);
  return new OAuthError('invalid_request', error.status, error.message);
}

/** RouteSpec.renderError of the registration endpoint (RFC 7591 §3.2.2) and the token endpoints. */
export const renderAs =
  (kind: 'registration' | 'token') =>
  (error: AppError): RouteResult => {
    const result = oauthResult(refusal(error, kind));
    return { ...result, headers: { ...error.headers, ...result.headers } };
  };
