/**
 * A short name for the DKIM keys a message is signed with, stored beside a message rendered at
 * admission (message_raw.signing): a delivery signs with its domain's keys of the moment, so a
 * stored rendering is sent only while those keys are the ones it names, and is made again when
 * they changed (a domain deleted and added again has new keys). Derived from the keys themselves,
 * not from IDs, so no change of keys can keep an old name. Computed once per key set object (the
 * domains capability caches them).
 */
import { createHash } from 'node:crypto';
import type { RenderDkim } from './render-task.js';

/** The identity of a message sent without a signature (the sandbox sender). */
export const UNSIGNED = 'unsigned';

const known = new WeakMap<RenderDkim, string>();

/** @example signingIdentity({ domain: 'acme.test', keys: [rsaKey] }) // 'k1:4vJ…' (24 characters) */
export function signingIdentity(dkim: RenderDkim): string {
  let identity = known.get(dkim);
  if (identity === undefined) {
    const hash = createHash('sha256').update(dkim.domain);
    for (const key of dkim.keys) hash.update(`\n${key.algorithm}\n${key.selector}\n${key.privateKeyPem}`);
    identity = `k1:${hash.digest('base64url').slice(0, 21)}`;
    known.set(dkim, identity);
  }
  return identity;
}
