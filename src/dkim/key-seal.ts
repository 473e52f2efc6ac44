/**
 * DKIM private keys at rest: sealed with the master key (AES-256-GCM, platform/crypto.ts) and
 * bound to their domain row, so a sealed key copied onto another domain's row fails to open
 * instead of signing that domain's mail. Never log what `unsealDkimKey` returns.
 */
import { seal, unseal } from '../platform/crypto.js';

/** The additional authenticated data: the purpose and the domain ID, e.g. `dkim:dom_01J...`. */
function aad(domainId: string): string {
  if (domainId === '') throw new Error('a DKIM key must be sealed to a domain ID');
  return `dkim:${domainId}`;
}

export function sealDkimKey(masterKey: Buffer, privateKeyPem: string, domainId: string): string {
  return seal(masterKey, privateKeyPem, aad(domainId));
}

/** Throws when the value was sealed under another key or for another domain. */
export function unsealDkimKey(masterKey: Buffer, sealed: string, domainId: string): string {
  return unseal(masterKey, sealed, aad(domainId));
}
