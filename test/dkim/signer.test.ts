/**
 * DKIM signing on worker threads, checked by an independent verifier (Debian's dkimpy) that
 * fetches the published keys from a real DNS server on loopback.
 */
import { availableParallelism } from 'node:os';
import test from 'ava';
import { type DomainDkimKeys, generateDkimKeys } from '../../src/dkim/keys.js';
import { createSigner, type DkimSigner, type SignRequest, workerCount } from '../../src/dkim/signer.js';
import { assertDkimpyAvailable, dkimpyVerify } from '../helpers/dkimpy-verify.js';
import { type DnsTestServer, startDnsServer } from '../helpers/dns-server.js';

const DOMAIN = 'sender.test';

let dns: DnsTestServer;
let signer: DkimSigner;
let keys: DomainDkimKeys;

test.before(async () => {
  assertDkimpyAvailable();
  dns = await startDnsServer();
  keys = await generateDkimKeys(DOMAIN, { rsaBits: 2048, ed25519: true, selectorPrefix: 'ph' });
  for (const key of [keys.rsa, keys.ed25519]) {
    if (key) dns.set(key.dnsName, 'TXT', [key.txtStrings]);
  }
  signer = createSigner({ workers: 2 });
});

test.after.always(async () => {
  await signer?.close();
  await dns?.stop();
});

function message(extra: readonly string[] = [], body = 'Hello,\r\n\r\nyour code is 123456.\r\n'): Buffer {
  return Buffer.from(
    [
      'From: Sender <hello@sender.test>',
      'To: someone@recipient.test',
      'Subject:  Your   sign-in code',
      'Date: Sun, 15 Jun 2025 10:00:00 +0000',
      'Message-ID: <abc123@sender.test>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 7bit',
      'X-Mailer: not signed',
      ...extra,
      '',
      body,
    ].join('\r\n'),
  );
}

function rsaOnly(): SignRequest {
  return { domain: DOMAIN, selector: keys.rsa.selector, privateKeyPem: keys.rsa.privateKeyPem };
}

function withEd25519(): SignRequest {
  const ed = keys.ed25519;
  if (!ed) throw new Error('the ed25519 key was not generated');
  return { ...rsaOnly(), ed25519: { selector: ed.selector, privateKeyPem: ed.privateKeyPem } };
}

/** The tags of the first DKIM-Signature header of a signed message. */
function signatureTags(signed: Buffer): Map<string, string> {
  const match = /^DKIM-Signature:(.*?)\r\n(?![ \t])/ms.exec(signed.toString('utf8'));
  const value = (match?.[1] ?? '').replace(/\r\n[ \t]+/g, ' ');
  return new Map(
    value
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => [
        part.slice(0, part.indexOf('=')).trim(),
        part.slice(part.indexOf('=') + 1).replace(/\s+/g, ''),
      ]),
  );
}

test('an RSA-signed message verifies with dkimpy against the key published in DNS', async (t) => {
  const signed = await signer.sign(message(), rsaOnly());
  const verdict = await dkimpyVerify(signed, dns);
  t.true(verdict.ok, verdict.output);
  t.deepEqual(verdict.signatures, [true]);
  t.true(dns.queries(keys.rsa.dnsName, 'TXT') > 0);
});

test('a message signed with RSA and ed25519 carries two signatures that both verify', async (t) => {
  const signed = await signer.sign(message(), withEd25519());
  const verdict = await dkimpyVerify(signed, dns);
  t.deepEqual(verdict.signatures, [true, true], verdict.output);
  t.is(signatureTags(signed).get('a'), 'rsa-sha256');
  t.regex(signed.toString('utf8'), /a=ed25519-sha256/);
});

test('a tampered body fails verification', async (t) => {
  const signed = await signer.sign(message(), withEd25519());
  const tampered = Buffer.from(signed.toString('utf8').replace('123456', '654321'));
  const verdict = await dkimpyVerify(tampered, dns);
  t.false(verdict.ok);
  t.deepEqual(verdict.signatures, [false, false], verdict.output);
});

test('a tampered subject fails verification, whitespace changes do not (relaxed/relaxed)', async (t) => {
  const signed = (await signer.sign(message(), rsaOnly())).toString('utf8');
  const respaced = Buffer.from(signed.replace('Subject:  Your   sign-in code', 'Subject: Your sign-in code'));
  t.true((await dkimpyVerify(respaced, dns)).ok);
  const tampered = Buffer.from(signed.replace('sign-in code', 'password reset'));
  t.false((await dkimpyVerify(tampered, dns)).ok);
});

test('the signature covers the listed headers that are present and nothing else', async (t) => {
  const signed = await signer.sign(
    message([
      'List-Unsubscribe: <https://sender.test/u/1>',
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
      'Reply-To: support@sender.test',
    ]),
    rsaOnly(),
  );
  const tags = signatureTags(signed);
  t.is(tags.get('c'), 'relaxed/relaxed');
  t.is(tags.get('d'), DOMAIN);
  t.is(tags.get('s'), keys.rsa.selector);
  const signedHeaders = (tags.get('h') ?? '').toLowerCase().split(':').sort();
  t.deepEqual(signedHeaders, [
    'content-transfer-encoding',
    'content-type',
    'date',
    'from',
    'list-unsubscribe',
    'list-unsubscribe-post',
    'message-id',
    'mime-version',
    'reply-to',
    'subject',
    'to',
  ]);
  t.true((await dkimpyVerify(signed, dns)).ok);
});

test('the signature header goes in front and the message follows byte for byte', async (t) => {
  const original = message();
  const copy = Buffer.from(original);
  const signed = await signer.sign(original, rsaOnly());
  t.true(signed.toString('utf8').startsWith('DKIM-Signature:'));
  t.true(signed.subarray(signed.length - original.length).equals(copy));
  t.true(original.equals(copy), 'the caller keeps its buffer');
  const headers = await signer.signatureHeaders(original, rsaOnly());
  t.regex(headers, /^DKIM-Signature:[\s\S]*\r\n$/);
});

test('a message without a From header is refused', async (t) => {
  const noFrom = Buffer.from('To: someone@recipient.test\r\nSubject: hi\r\n\r\nbody\r\n');
  await t.throwsAsync(signer.sign(noFrom, rsaOnly()), { message: /From/ });
});

test('a key that does not match the algorithm is refused', async (t) => {
  const ed = keys.ed25519;
  if (!ed) return t.fail('the ed25519 key was not generated');
  await t.throwsAsync(
    signer.sign(message(), {
      domain: DOMAIN,
      selector: ed.selector,
      privateKeyPem: ed.privateKeyPem,
      algorithm: 'rsa-sha256',
    }),
    { message: /DKIM signing failed/ },
  );
});

test('many messages sign concurrently across the pool', async (t) => {
  const signed = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      signer.sign(message([`X-Seq: ${i}`], `message ${i}\r\n`), rsaOnly()),
    ),
  );
  t.true(signed.every((m) => m.toString('utf8').startsWith('DKIM-Signature:')));
  t.true((await dkimpyVerify(signed[39] ?? Buffer.alloc(0), dns)).ok);
});

test('workers = 0 starts one signing thread per CPU, and never fewer than one', (t) => {
  t.is(workerCount(0), Math.max(1, availableParallelism()));
  t.is(workerCount(3), 3);
  t.is(signer.threads, 2);
});
