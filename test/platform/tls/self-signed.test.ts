import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import test from 'ava';
import { ensureSelfSignedCert } from '../../../src/platform/tls/self-signed.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'posthorn-self-signed-test-'));
}

test('a certificate and its key are created for the host name', async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const dir = join(root, 'tls');
  const files = await ensureSelfSignedCert(dir, 'mx.example.test');

  const cert = new X509Certificate(await readFile(files.certFile));
  t.regex(cert.subject, /CN=mx\.example\.test/);
  t.is(cert.subjectAltName, 'DNS:mx.example.test');
  t.is(cert.issuer, cert.subject);
  t.true(cert.checkPrivateKey(createPrivateKey(await readFile(files.keyFile))));
  t.true(new Date(cert.validTo).getTime() > Date.now() + 365 * 24 * 3600 * 1000);
});

test('the private key is readable by its owner only', async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const files = await ensureSelfSignedCert(join(root, 'tls'), 'localhost');
  t.is((await stat(files.keyFile)).mode & 0o777, 0o600);
  t.is((await stat(join(root, 'tls'))).mode & 0o777, 0o700);
});

test('the pair loads into a TLS context', async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const files = await ensureSelfSignedCert(root, 'localhost');
  const key = await readFile(files.keyFile);
  const cert = await readFile(files.certFile);
  t.notThrows(() => createSecureContext({ key, cert }));
});

test('existing files are reused as they are', async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const first = await ensureSelfSignedCert(root, 'localhost');
  const before = await readFile(first.certFile);
  const second = await ensureSelfSignedCert(root, 'other.example.test');
  t.deepEqual(second, first);
  t.deepEqual(await readFile(second.certFile), before);
});

test('a missing key makes a fresh pair', async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const files = await ensureSelfSignedCert(root, 'localhost');
  const before = await readFile(files.certFile);
  await unlink(files.keyFile);
  await ensureSelfSignedCert(root, 'localhost');
  const cert = new X509Certificate(await readFile(files.certFile));
  t.notDeepEqual(await readFile(files.certFile), before);
  t.true(cert.checkPrivateKey(createPrivateKey(await readFile(files.keyFile))));
});

test('concurrent calls share one matching pair and leave no scratch files', async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const [a, b] = await Promise.all([
    ensureSelfSignedCert(root, 'localhost'),
    ensureSelfSignedCert(root, 'localhost'),
  ]);
  t.deepEqual(a, b);
  const cert = new X509Certificate(await readFile(a.certFile));
  t.true(cert.checkPrivateKey(createPrivateKey(await readFile(a.keyFile))));
  t.deepEqual((await readdir(root)).sort(), ['self-signed.crt', 'self-signed.key']);
});

test('an IP address gets an IP subjectAltName and a trailing dot is dropped', async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const ip = await ensureSelfSignedCert(join(root, 'ip'), '127.0.0.1');
  t.is(new X509Certificate(await readFile(ip.certFile)).subjectAltName, 'IP Address:127.0.0.1');
  const dotted = await ensureSelfSignedCert(join(root, 'dot'), 'mx.example.test.');
  t.is(new X509Certificate(await readFile(dotted.certFile)).subjectAltName, 'DNS:mx.example.test');
});

test('a host name that is not one is refused before openssl runs', async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  for (const bad of ['mx/CN=evil', 'a b', '', '-mx.example', 'x'.repeat(64)]) {
    await t.throwsAsync(ensureSelfSignedCert(join(root, 'bad'), bad), { message: /not a valid host name/ });
  }
});

test("a certificate beside another pair's key (two processes that wrote at once) is replaced by a matching pair", async (t) => {
  const root = await tempDir();
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const files = await ensureSelfSignedCert(join(root, 'a'), 'localhost');
  const other = await ensureSelfSignedCert(join(root, 'b'), 'localhost');
  await writeFile(files.keyFile, await readFile(other.keyFile), { mode: 0o600 });
  const mismatched = await readFile(files.certFile);

  const again = await ensureSelfSignedCert(join(root, 'a'), 'localhost');
  t.deepEqual(again, files);
  t.notDeepEqual(await readFile(files.certFile), mismatched);
  const cert = new X509Certificate(await readFile(files.certFile));
  t.true(cert.checkPrivateKey(createPrivateKey(await readFile(files.keyFile))));
});
