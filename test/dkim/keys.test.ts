/**
 * DKIM key generation: the published records match the private keys, selectors are unique per
 * rotation, long records split for DNS hosts, and private keys are sealed to their domain.
 */
import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import test from 'ava';
import { sealDkimKey, unsealDkimKey } from '../../src/dkim/key-seal.js';
import {
  dkimKeyOptions,
  generateDkimKeys,
  generateRsaDkimKey,
  rotationSelector,
  splitTxtValue,
} from '../../src/dkim/keys.js';
import { configSchema } from '../../src/platform/config/schema.js';

const JUNE_2025 = new Date(Date.UTC(2025, 5, 15));

function tag(txt: string, name: string): string | undefined {
  return txt
    .split(';')
    .map((part) => part.trim().split('='))
    .find(([key]) => key === name)
    ?.slice(1)
    .join('=');
}

test('an RSA key is published as the base64 DER public key that matches the private key', async (t) => {
  const keys = await generateDkimKeys('Example.TEST.', {
    rsaBits: 2048,
    ed25519: false,
    selectorPrefix: 'ph',
  });
  const { rsa } = keys;
  t.is(keys.ed25519, undefined);
  t.is(rsa.algorithm, 'rsa-sha256');
  t.is(tag(rsa.txtValue, 'v'), 'DKIM1');
  t.is(tag(rsa.txtValue, 'k'), 'rsa');
  t.is(rsa.dnsName, `${rsa.selector}._domainkey.example.test`);
  const publicKey = createPublicKey({
    key: Buffer.from(tag(rsa.txtValue, 'p') ?? '', 'base64'),
    format: 'der',
    type: 'spki',
  });
  t.is(publicKey.asymmetricKeyDetails?.modulusLength, 2048);
  const data = Buffer.from('canonicalized headers');
  t.true(verify('sha256', data, publicKey, sign('sha256', data, createPrivateKey(rsa.privateKeyPem))));
  t.true(rsa.privateKeyPem.startsWith('-----BEGIN PRIVATE KEY-----'));
});

test('an ed25519 key is published as the raw 32-byte public key under its own selector (RFC 8463)', async (t) => {
  const { rsa, ed25519 } = await generateDkimKeys('example.test', {
    rsaBits: 1024,
    ed25519: true,
    selectorPrefix: 'ph',
    now: JUNE_2025,
  });
  if (!ed25519) return t.fail('no ed25519 key was generated');
  t.is(ed25519.algorithm, 'ed25519-sha256');
  t.is(tag(ed25519.txtValue, 'k'), 'ed25519');
  t.not(ed25519.selector, rsa.selector);
  t.is(ed25519.dnsName, `${ed25519.selector}._domainkey.example.test`);
  const raw = Buffer.from(tag(ed25519.txtValue, 'p') ?? '', 'base64');
  t.is(raw.length, 32);
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]);
  const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const data = Buffer.from('sha256 of canonicalized headers');
  t.true(verify(null, data, publicKey, sign(null, data, createPrivateKey(ed25519.privateKeyPem))));
});

test('selectors carry the prefix and the month and differ from one rotation to the next', (t) => {
  const first = rotationSelector('ph', JUNE_2025);
  const second = rotationSelector('ph', JUNE_2025);
  t.regex(first, /^ph202506[a-z0-9]{4}$/);
  t.not(first, second);
  t.regex(rotationSelector('Mail-', JUNE_2025), /^mail-202506[a-z0-9]{4}$/);
});

test('a selector prefix that cannot be a DNS label is refused', (t) => {
  t.throws(() => rotationSelector('ph_', JUNE_2025), { message: /selector_prefix/ });
  t.throws(() => rotationSelector('a.b', JUNE_2025), { message: /not a DNS label/ });
});

test('a long record splits into strings of at most 255 characters that join back to the value', async (t) => {
  const key = await generateRsaDkimKey('example.test', 'ph202506abcd', 4096);
  t.true(key.txtValue.length > 255 * 2);
  t.true(key.txtStrings.every((s) => s.length <= 255));
  t.is(key.txtStrings.join(''), key.txtValue);
  t.deepEqual(splitTxtValue('abc', 2), ['ab', 'c']);
  t.deepEqual(splitTxtValue(''), ['']);
});

test('RSA keys shorter than 1024 bits are refused (RFC 8301)', async (t) => {
  await t.throwsAsync(generateRsaDkimKey('example.test', 'weak', 512), { message: /1024/ });
});

test('key options come from the [dkim] config section', (t) => {
  const config = configSchema.parse({ dkim: { rsa_bits: 4096, ed25519: true, selector_prefix: 'pm' } });
  t.deepEqual(dkimKeyOptions(config), { rsaBits: 4096, ed25519: true, selectorPrefix: 'pm' });
});

test('a sealed private key opens only with its master key and for its own domain', (t) => {
  const masterKey = randomBytes(32);
  const pem = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n';
  const sealed = sealDkimKey(masterKey, pem, 'dom_01');
  t.false(sealed.includes('PRIVATE KEY'));
  t.is(unsealDkimKey(masterKey, sealed, 'dom_01'), pem);
  t.throws(() => unsealDkimKey(masterKey, sealed, 'dom_02'));
  t.throws(() => unsealDkimKey(randomBytes(32), sealed, 'dom_01'));
  t.throws(() => sealDkimKey(masterKey, pem, ''), { message: /domain ID/ });
});
