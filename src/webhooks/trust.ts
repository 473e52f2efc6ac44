/**
 * The certificates an https:// webhook target is checked against: Node's bundled roots, plus the
 * PEM file of `webhooks.tls_ca_file` when one is set (a private CA, or a test's own). Read once at
 * build time; an unreadable file stops the boot naming the key.
 *
 * @example const ca = webhookTrust(kernel.config.webhooks); // undefined: Node's defaults
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Config } from '../platform/config/schema.js';

export function webhookTrust(config: Config['webhooks']): string | undefined {
  if (config.tls_ca_file === '') return undefined;
  let extra: string;
  try {
    extra = readFileSync(config.tls_ca_file, 'utf8');
  } catch (error) {
    throw new Error(`webhooks.tls_ca_file: cannot read ${config.tls_ca_file}: ${(error as Error).message}`);
  }
  return [...rootCertificates, extra].join('\n');
}
