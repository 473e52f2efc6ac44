/**
 * The DNS records an operator publishes for a sending domain, derived from the config and the
 * domain's DKIM public keys (never stored as text, so a changed `delivery.sending_ips` changes the
 * advice at once). Purposes: `spf` and `dkim` decide verification; `dmarc`, `return_path` (the
 * VERP bounce host, DESIGN.md §5) and `tracking` are reported but optional. A record that would
 * name a local value (`localhost`, a loopback address: platform/config/public-identity.ts) is left
 * out, never proposed: the domain's `config_issues` say which keys to set, and while SPF is left
 * out the domain cannot verify.
 */
import { isIP } from 'node:net';
import { longestSelectorLength, splitTxtValue } from '../dkim/keys.js';
import { identityIssues, trackingHost, withheld } from '../platform/config/public-identity.js';
import type { Config } from '../platform/config/schema.js';

export type RecordPurpose = 'spf' | 'dkim' | 'dmarc' | 'return_path' | 'tracking';
export type RecordType = 'TXT' | 'MX' | 'CNAME' | 'A' | 'AAAA';

export interface ExpectedRecord {
  /** Stable identity of the record, keying its stored check result. */
  readonly key: string;
  readonly purpose: RecordPurpose;
  readonly type: RecordType;
  /** Fully qualified, no trailing dot. */
  readonly host: string;
  /** Relative to the domain; `@` for the domain itself. */
  readonly name: string;
  readonly value: string;
  /** TXT only: the value as character-strings of at most 255 characters (RFC 1035 §3.3.14). */
  readonly value_strings?: readonly string[];
  /** MX only. */
  readonly priority?: number;
  /** Whether the domain can be verified without it (SPF and the RSA DKIM key are required). */
  readonly required: boolean;
}

export interface PublicDkimKey {
  readonly algorithm: 'rsa-sha256' | 'ed25519-sha256';
  readonly selector: string;
  readonly publicKey: string;
}

export type RecordConfig = Pick<Config, 'delivery' | 'smtp_in' | 'tracking' | 'server' | 'domains'>;

/** The VERP return-path host of a sending domain: `<delivery.bounce_subdomain>.<domain>`. */
export function bounceHost(config: Pick<Config, 'delivery'>, domain: string): string {
  return `${config.delivery.bounce_subdomain}.${domain}`;
}

/**
 * The longest sending-domain name whose record hosts all fit DNS's 253 characters (RFC 1035
 * §3.1): the longest is usually the DKIM host `<selector>._domainkey.<name>`.
 */
export function maxDomainLength(config: Pick<Config, 'dkim' | 'delivery' | 'domains'>): number {
  const prefixes = [
    longestSelectorLength(config.dkim.selector_prefix) + '._domainkey.'.length,
    '_dmarc.'.length,
    config.delivery.bounce_subdomain.length + 1,
    config.domains.tracking_subdomain.length + 1,
  ];
  return 253 - Math.max(...prefixes);
}

/** The SPF mechanisms that authorize this appliance. */
export function spfMechanisms(config: Pick<Config, 'delivery'>): string[] {
  const mechanisms = config.delivery.sending_ips.map((ip) => `${isIP(ip) === 6 ? 'ip6' : 'ip4'}:${ip}`);
  if (config.delivery.spf_include) mechanisms.push(`include:${config.delivery.spf_include}`);
  if (mechanisms.length === 0) mechanisms.push(`a:${config.delivery.hostname}`);
  return mechanisms;
}

/** RFC 7208: one record; `~all` (softfail) so a forgotten sender is flagged, not refused, while it is set up. */
export function spfValue(config: Pick<Config, 'delivery'>): string {
  return `v=spf1 ${spfMechanisms(config).join(' ')} ~all`;
}

function relative(host: string, domain: string): string {
  return host === domain ? '@' : host.slice(0, -(domain.length + 1));
}

function txt(
  purpose: RecordPurpose,
  host: string,
  domain: string,
  value: string,
  required: boolean,
): ExpectedRecord {
  return {
    key: `${purpose}:TXT:${host}`,
    purpose,
    type: 'TXT',
    host,
    name: relative(host, domain),
    value,
    value_strings: splitTxtValue(value),
    required,
  };
}

/** Whether a required record (SPF) is left out for a local config value: no domain can verify then. */
export function requiredRecordWithheld(config: RecordConfig): boolean {
  return withheld(identityIssues(config), 'spf');
}

export function expectedRecords(
  config: RecordConfig,
  domain: string,
  keys: readonly PublicDkimKey[],
): ExpectedRecord[] {
  const issues = identityIssues(config);
  const spf = !withheld(issues, 'spf');
  const records: ExpectedRecord[] = spf ? [txt('spf', domain, domain, spfValue(config), true)] : [];
  for (const key of keys) {
    const value = `v=DKIM1; k=${key.algorithm === 'rsa-sha256' ? 'rsa' : 'ed25519'}; p=${key.publicKey}`;
    // Verifiers that know only RSA ignore the ed25519 signature, so only the RSA key is required.
    records.push(
      txt('dkim', `${key.selector}._domainkey.${domain}`, domain, value, key.algorithm === 'rsa-sha256'),
    );
  }
  records.push(txt('dmarc', `_dmarc.${domain}`, domain, 'v=DMARC1; p=none; adkim=r; aspf=r', false));
  const bounce = bounceHost(config, domain);
  if (!withheld(issues, 'bounce_mx')) {
    records.push({
      key: `return_path:MX:${bounce}`,
      purpose: 'return_path',
      type: 'MX',
      host: bounce,
      name: relative(bounce, domain),
      value: config.smtp_in.hostname,
      priority: 10,
      required: false,
    });
  }
  // The envelope sender is at the bounce host, so that is where receivers evaluate SPF (RFC 7208 §2.4).
  if (spf) records.push(txt('return_path', bounce, domain, spfValue(config), false));
  if (withheld(issues, 'tracking')) return records;
  const tracking = `${config.domains.tracking_subdomain}.${domain}`;
  const target = trackingHost(config);
  const family = isIP(target);
  records.push({
    key: `tracking:${family === 0 ? 'CNAME' : family === 6 ? 'AAAA' : 'A'}:${tracking}`,
    purpose: 'tracking',
    type: family === 0 ? 'CNAME' : family === 6 ? 'AAAA' : 'A',
    host: tracking,
    name: relative(tracking, domain),
    value: target,
    required: false,
  });
  return records;
}
