/**
 * What the config names on this host, checked after the schema by `posthorn serve` and `posthorn
 * config check` (the unit's ExecStartPre): the files the engines read and the local addresses
 * delivery sends from. A problem here used to surface only when an engine started, as a stack
 * trace or a listener silently missing; now every one is named by its key in one ConfigError
 * (exit 2). Only what will run is checked: delivery's keys when `delivery.enabled`, the STARTTLS
 * files when `smtp_in.enabled`. It never shows a file's content, nor the path of
 * `smtp_in.tls_key_file`, which `config print` redacts.
 */
import { X509Certificate } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { masterKeyPath } from '../master-key.js';
import { ConfigError } from './load.js';
import type { Config } from './schema.js';

/** Throws a ConfigError naming every key whose file or address this host cannot provide. */
export async function checkHost(config: Config, source: string): Promise<void> {
  const problems = [...storageProblems(config)];
  if (config.delivery.enabled) {
    problems.push(...caProblems(config.delivery.tls_ca_file));
    problems.push(...(await sourceIpProblems(config.delivery.source_ips)));
  }
  if (config.smtp_in.enabled) problems.push(...tlsPairProblems(config.smtp_in));
  if (problems.length > 0) throw new ConfigError(source, problems);
}

function isDirectory(file: string): boolean | undefined {
  try {
    return statSync(file).isDirectory();
  } catch {
    return undefined;
  }
}

function storageProblems(config: Config): string[] {
  const problems: string[] = [];
  const dataDir = config.storage.data_dir;
  if (isDirectory(dataDir) === false) problems.push(`storage.data_dir: ${dataDir} is not a directory`);
  const keyFile = masterKeyPath(dataDir, config.security.master_key_file);
  if (isDirectory(keyFile) === true)
    problems.push(`security.master_key_file: ${keyFile} is a directory, not the master key file`);
  return problems;
}

/** The file's text, or the reason it cannot be read (an error code: the message would repeat the path). */
function read(file: string): { text: string } | { reason: string } {
  try {
    return { text: readFileSync(file, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { reason: `cannot be read (${code ?? 'unknown error'})` };
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Delivery trusts these certificates beside the system's: each block must parse, and one must be there. */
function caProblems(file: string): string[] {
  if (file === '') return [];
  const content = read(file);
  if ('reason' in content) return [`delivery.tls_ca_file: ${file} ${content.reason}`];
  const blocks = content.text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return [`delivery.tls_ca_file: ${file} holds no PEM certificate`];
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (error) {
      return [
        `delivery.tls_ca_file: certificate ${index + 1} in ${file} does not parse (${(error as Error).message})`,
      ];
    }
  }
  return [];
}

/** The listener's certificate and key: readable, PEM, and a pair, as smtp-server will load them. */
function tlsPairProblems(smtp: Config['smtp_in']): string[] {
  if (smtp.tls_cert_file === '' || smtp.tls_key_file === '') return [];
  const cert = read(smtp.tls_cert_file);
  const key = read(smtp.tls_key_file);
  const problems: string[] = [];
  if ('reason' in cert) problems.push(`smtp_in.tls_cert_file: ${smtp.tls_cert_file} ${cert.reason}`);
  if ('reason' in key) problems.push(`smtp_in.tls_key_file: ${key.reason}`);
  if ('text' in cert && 'text' in key) {
    try {
      createSecureContext({ cert: cert.text, key: key.text });
    } catch (error) {
      problems.push(
        `smtp_in.tls_cert_file, smtp_in.tls_key_file: not a PEM certificate and its private key (${(error as Error).message})`,
      );
    }
  }
  return problems;
}

/**
 * Each source address must be one this host can send from: the probe binds it as a connection
 * would (so AnyIP routes and `ip_nonlocal_bind` count, as they do for delivery).
 */
async function sourceIpProblems(addresses: readonly string[]): Promise<string[]> {
  const reasons = await Promise.all(addresses.map(bindFailure));
  return reasons.flatMap((reason, index) =>
    reason === undefined
      ? []
      : [`delivery.source_ips.${index}: ${addresses[index]} is not an address of this host (${reason})`],
  );
}

/**
 * How long an address that is not (yet) on this host is waited for. An IPv6 address stays
 * "tentative", and cannot be bound, for a second or two after boot while duplicate address
 * detection runs, even after network-online.target; refusing it then would exit 2, which the unit
 * never restarts.
 */
const ADDRESS_GRACE_MS = 3000;
const ADDRESS_RETRY_MS = 250;

/** The reason `address` cannot be bound, after waiting out a missing one (ADDRESS_GRACE_MS). */
async function bindFailure(address: string): Promise<string | undefined> {
  const deadline = Date.now() + ADDRESS_GRACE_MS;
  for (;;) {
    const reason = await bindOnce(address);
    if (reason !== 'EADDRNOTAVAIL' || Date.now() >= deadline) return reason;
    await new Promise((resolve) => setTimeout(resolve, ADDRESS_RETRY_MS));
  }
}

function bindOnce(address: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket(isIP(address) === 6 ? 'udp6' : 'udp4');
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.close();
      resolve(error.code ?? error.message);
    });
    socket.bind({ address, port: 0 }, () => {
      socket.close();
      resolve(undefined);
    });
  });
}
