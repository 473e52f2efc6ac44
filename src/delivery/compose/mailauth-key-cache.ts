/**
 * Makes mailauth parse each DKIM private key once per worker instead of once per signature:
 * mailauth's `getPrivateKey` turns the PEM into a KeyObject on every call, which costs about a
 * third of an RSA-2048 signature. The signer captures `getPrivateKey` from its tools module when
 * it loads, so this module must be imported before anything that loads mailauth's DKIM code
 * (render-task.ts imports it first). Pinned to mailauth 7.1; the DKIM tests verify the result.
 */
import type { KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tools = require('mailauth/lib/tools.js') as { getPrivateKey: (key: string | Buffer) => KeyObject };
const parse = tools.getPrivateKey;
const parsed = new Map<string, KeyObject>();
const MAX_KEYS = 256;

tools.getPrivateKey = (key) => {
  if (typeof key !== 'string') return parse(key);
  let found = parsed.get(key);
  if (found === undefined) {
    if (parsed.size >= MAX_KEYS) parsed.delete(parsed.keys().next().value as string);
    found = parse(key);
    parsed.set(key, found);
  }
  return found;
};
