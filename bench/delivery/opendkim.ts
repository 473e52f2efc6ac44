/**
 * OpenDKIM (Debian's `opendkim` package) as the signing milter of the end-to-end benchmark's
 * Postfix: a fresh RSA-2048 key for the sender domain, relaxed/relaxed, signing every message
 * that comes from loopback (OpenDKIM's default internal hosts). Runs in the foreground as a child
 * of the benchmark and stops with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stopChild } from '../lib.js';

export interface OpenDkim {
  /** The socket to give Postfix as `smtpd_milters`. */
  readonly milter: string;
  stop(): Promise<void>;
}

/**
 * The milter listens on a unix socket in `dir`: over a loopback TCP socket Postfix managed only
 * 88 messages/s on 8 connections with its CPUs mostly idle (small milter writes meeting delayed
 * ACKs, by the look of it; not traced further), against 324/s on the unix socket.
 */
export async function startOpenDkim(dir: string, domain: string): Promise<OpenDkim> {
  mkdirSync(dir, { recursive: true });
  const keyFile = path.join(dir, 'bench.private');
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  writeFileSync(keyFile, privateKey, { mode: 0o600 });
  const conf = path.join(dir, 'opendkim.conf');
  const socket = path.join(dir, 'milter.sock');
  writeFileSync(
    conf,
    `Syslog no
Mode s
Domain ${domain}
Selector bench
KeyFile ${keyFile}
RequireSafeKeys no
Canonicalization relaxed/relaxed
SignatureAlgorithm rsa-sha256
Socket local:${socket}
UMask 000
PidFile ${path.join(dir, 'opendkim.pid')}
`,
  );
  const child: ChildProcess = spawn('/usr/sbin/opendkim', ['-f', '-x', conf], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`opendkim exited (${code}); apt-get install opendkim`))),
  );
  exited.catch(() => {});
  await Promise.race([socketReady(socket), exited]);
  return {
    milter: `unix:${socket}`,
    stop: () => stopChild(child),
  };
}

async function socketReady(socket: string): Promise<void> {
  for (let i = 0; i < 100 && !existsSync(socket); i++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  if (!existsSync(socket)) throw new Error(`opendkim made no socket at ${socket}`);
}
