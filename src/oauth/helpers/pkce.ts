/**
 * PKCE (RFC 7636) with the only method OAuth 2.1 lets a server require: S256. The challenge is
 * BASE64URL(SHA-256(verifier)), 43 characters; the verifier is 43 to 128 unreserved characters.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { InvalidGrant, InvalidRequest } from '../errors.js';

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 7636 §4.3: `code_challenge_method` must be S256 here (`plain` is refused, as OAuth 2.1 allows). */
export function checkChallenge(challenge: string | undefined, method: string | undefined): string {
  if (!challenge) throw new InvalidRequest('code_challenge is required: PKCE with S256 is mandatory.');
  if (method === undefined || method === '')
    throw new InvalidRequest('code_challenge_method is required and must be S256.');
  if (method !== 'S256')
    throw new InvalidRequest(`code_challenge_method "${method}" is not supported; use S256.`);
  if (!CHALLENGE.test(challenge))
    throw new InvalidRequest(
      'code_challenge must be the 43-character base64url SHA-256 of the code_verifier.',
    );
  return challenge;
}

/** RFC 7636 §4.6: a malformed verifier is a bad request; one that does not match is a bad grant. */
export function checkVerifier(verifier: string, challenge: string): void {
  if (!VERIFIER.test(verifier))
    throw new InvalidRequest(
      'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~".',
    );
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  if (computed.length !== expected.length || !timingSafeEqual(computed, expected))
    throw new InvalidGrant('code_verifier does not match the code_challenge of the authorization request.');
}
