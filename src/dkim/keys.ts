/**
 * DKIM key generation for a sending domain: an RSA key (RFC 6376, RFC 8301) and, when enabled, an
 * ed25519 key (RFC 8463) under its own selector, each with the TXT record to publish. Keys are
 * generated off the event loop (node's libuv pool). Private keys leave here as PEM and must be
 * sealed before they are stored (see key-seal.ts); this module never logs or stores them.
 */
import { generateKeyPair, randomInt } from 'node:crypto';
import { promisify } from 'node:util';
import type { Config } from '../platform/config/schema.js';

const generateKeyPairAsync = promisify(generateKeyPair);

export type DkimAlgorithm = 'rsa-sha256' | 'ed25519-sha256';

export interface DkimKey {
  readonly algorithm: DkimAlgorithm;
  readonly selector: string;
  /** Where the record goes: `<selector>._domainkey.<domain>`. */
  readonly dnsName: string;
  /** The whole TXT value, ready to paste: `v=DKIM1; k=rsa; p=...`. */
  readonly txtValue: string;
  /** The same value as character-strings of at most 255 characters, for DNS hosts that need them. */
  readonly txtStrings: readonly string[];
  /** Base64 of the public key as it appears in `p=`. */
  readonly publicKey: string;
  /** PKCS#8 PEM; seal it with `sealDkimKey` before storing. */
  readonly privateKeyPem: string;
}

export interface DomainDkimKeys {
  readonly rsa: DkimKey;
  readonly ed25519?: DkimKey;
}

export interface DkimKeyOptions {
  readonly rsaBits: 1024 | 2048 | 4096;
  readonly ed25519: boolean;
  readonly selectorPrefix: string;
  /** When the keys are made; it names the selector. */
  readonly now?: Date;
}

/** The `[dkim]` section as key options. */
export function dkimKeyOptions(config: Pick<Config, 'dkim'>): DkimKeyOptions {
  return {
    rsaBits: config.dkim.rsa_bits,
    ed25519: config.dkim.ed25519,
    selectorPrefix: config.dkim.selector_prefix,
  };
}

const SELECTOR_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** DER prefix of an ed25519 SubjectPublicKeyInfo (RFC 8410 §4); the raw key is the 32 bytes after it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * A selector unique to one rotation: the prefix, the year and month, and four random characters,
 * e.g. `ph202506k3x9`, so rotating twice in a month never reuses a published name. The ed25519
 * selector is the same with `e` appended, so the two read as a pair.
 */
export function rotationSelector(prefix: string, now: Date = new Date()): string {
  const month = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  let suffix = '';
  for (let i = 0; i < 4; i++) suffix += SELECTOR_ALPHABET[randomInt(SELECTOR_ALPHABET.length)];
  const selector = `${prefix.toLowerCase()}${month}${suffix}`;
  if (!LABEL.test(selector)) {
    throw new Error(
      `DKIM selector "${selector}" is not a DNS label; dkim.selector_prefix may use only a-z, 0-9 and "-"`,
    );
  }
  return selector;
}

/** The length of the longest selector `rotationSelector` makes for `prefix` (the ed25519 one). */
export function longestSelectorLength(prefix: string): number {
  return prefix.length + 'YYYYMM'.length + 4 + 'e'.length;
}

/** Splits a TXT value into character-strings of at most `size` characters (RFC 1035 §3.3.14). */
export function splitTxtValue(value: string, size = 255): string[] {
  const strings: string[] = [];
  for (let i = 0; i < value.length; i += size) strings.push(value.slice(i, i + size));
  return strings.length > 0 ? strings : [''];
}

function describeKey(
  domain: string,
  algorithm: DkimAlgorithm,
  selector: string,
  publicKey: string,
  privateKeyPem: string,
): DkimKey {
  // RFC 6376 §3.6.1 tags; verifiers join character-strings without spaces (§3.6.2.2).
  const txtValue = `v=DKIM1; k=${algorithm === 'rsa-sha256' ? 'rsa' : 'ed25519'}; p=${publicKey}`;
  return {
    algorithm,
    selector,
    dnsName: `${selector}._domainkey.${domain}`,
    txtValue,
    txtStrings: splitTxtValue(txtValue),
    publicKey,
    privateKeyPem,
  };
}

export async function generateRsaDkimKey(domain: string, selector: string, bits: number): Promise<DkimKey> {
  if (bits < 1024) throw new Error('RSA DKIM keys must have at least 1024 bits (RFC 8301 §3.2)');
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  // RFC 6376 §3.6.1: p= is the base64 of the DER SubjectPublicKeyInfo.
  return describeKey(domain, 'rsa-sha256', selector, publicKey.toString('base64'), privateKey);
}

export async function generateEd25519DkimKey(domain: string, selector: string): Promise<DkimKey> {
  const { publicKey, privateKey } = await generateKeyPairAsync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  if (publicKey.length !== 44 || !publicKey.subarray(0, 12).equals(ED25519_SPKI_PREFIX)) {
    throw new Error('unexpected ed25519 public key encoding');
  }
  // RFC 8463 §4.2: p= is the base64 of the raw 32-byte public key, not an SPKI structure.
  return describeKey(
    domain,
    'ed25519-sha256',
    selector,
    publicKey.subarray(12).toString('base64'),
    privateKey,
  );
}

/**
 * Generates the keys of one rotation for `domain`.
 *
 * @example
 * const keys = await generateDkimKeys('example.com', dkimKeyOptions(config));
 * // publish keys.rsa.txtValue at keys.rsa.dnsName; store sealDkimKey(masterKey, keys.rsa.privateKeyPem, domainId)
 */
export async function generateDkimKeys(domain: string, options: DkimKeyOptions): Promise<DomainDkimKeys> {
  const name = domain.toLowerCase().replace(/\.$/, '');
  const selector = rotationSelector(options.selectorPrefix, options.now);
  const [rsa, ed25519] = await Promise.all([
    generateRsaDkimKey(name, selector, options.rsaBits),
    options.ed25519 ? generateEd25519DkimKey(name, `${selector}e`) : undefined,
  ]);
  return ed25519 ? { rsa, ed25519 } : { rsa };
}
