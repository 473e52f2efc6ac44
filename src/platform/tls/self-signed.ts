/**
 * A self-signed certificate for the inbound SMTP listener when the operator configured none, so
 * that STARTTLS is offered from the first boot. Sending MTAs use opportunistic TLS and do not
 * verify the certificate (RFC 3207 §4.1, RFC 7435), so a self-signed one protects against passive
 * eavesdropping, which is what is asked of it here. It is never used for the HTTP API.
 *
 * Made with the `openssl` command (Debian package `openssl`) rather than an npm dependency.
 * An existing pair is reused as it is when the certificate is the key's; a pair that is not (two
 * processes that wrote at once, one's key beside the other's certificate) is made anew. The
 * private key is written 0600 inside a 0700 temporary directory and moved into place, so it is
 * never readable by others, even for a moment.
 */
import { execFile } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CertFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export const certFileName = 'self-signed.crt';
export const keyFileName = 'self-signed.key';
const validDays = 3650;
/** Fresh pairs made before giving up when other processes keep replacing the files under this one. */
const MAX_ATTEMPTS = 3;

// Calls in flight, per directory: two boot steps asking at once must not write a mismatched pair.
const pending = new Map<string, Promise<CertFiles>>();

/**
 * Returns `dir/self-signed.crt` and `dir/self-signed.key`, creating both (RSA 2048, SHA-256, valid
 * ten years, CN and subjectAltName = `hostname`) when either is missing.
 *
 * @example const { certFile, keyFile } = await ensureSelfSignedCert('data/tls', 'mx.example.com');
 */
export function ensureSelfSignedCert(dir: string, hostname: string): Promise<CertFiles> {
  const existing = pending.get(dir);
  if (existing) return existing;
  const work = ensure(dir, hostname).finally(() => pending.delete(dir));
  pending.set(dir, work);
  return work;
}

async function ensure(dir: string, hostname: string): Promise<CertFiles> {
  const files = { certFile: join(dir, certFileName), keyFile: join(dir, keyFileName) };
  if (await isPair(files)) return files;
  const name = hostname.replace(/\.$/, '');
  const altName = subjectAltName(name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // The two renames are not one step: another process doing the same at once can put its key
  // beside this one's certificate. Checked after the moves; the last to check makes a pair again.
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    await create(dir, name, altName, files);
    if (await isPair(files)) return files;
  }
  throw new Error(`${files.keyFile} and ${files.certFile} kept being replaced by another process; try again`);
}

async function create(dir: string, name: string, altName: string, files: CertFiles): Promise<void> {
  const scratch = await mkdtemp(join(dir, '.self-signed-'));
  try {
    const key = join(scratch, keyFileName);
    const cert = join(scratch, certFileName);
    await openssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-sha256',
      '-nodes',
      '-days',
      String(validDays),
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=${altName}`,
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    await chmod(key, 0o600);
    await chmod(cert, 0o644);
    // Key first: a reader that finds the certificate can rely on its key being there.
    await rename(key, files.keyFile);
    await rename(cert, files.certFile);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function subjectAltName(name: string): string {
  if (isIP(name) !== 0) return `IP:${name}`;
  // Only LDH labels (RFC 1123 §2.1), so nothing can break out of openssl's -subj syntax.
  const label = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
  if (name.length > 253 || !name.split('.').every((part) => label.test(part))) {
    throw new Error(`not a valid host name for a certificate: ${JSON.stringify(name)}`);
  }
  return `DNS:${name}`;
}

async function openssl(args: readonly string[]): Promise<void> {
  try {
    await run('openssl', args, { timeout: 60_000 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('the openssl command is missing: install the Debian package "openssl"');
    }
    const stderr = (err as { stderr?: unknown }).stderr;
    throw new Error(`openssl could not create a certificate: ${String(stderr ?? err).trim()}`);
  }
}

/** Whether both files are there and the certificate is the key's. */
async function isPair(files: CertFiles): Promise<boolean> {
  try {
    const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch {
    return false;
  }
}
