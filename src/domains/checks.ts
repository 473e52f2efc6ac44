/**
 * The DNS checks of one sending domain, each answering for one expected record: found and right
 * (`verified`), wrong or absent (`failed`), or an optional record absent (`missing`). A
 * temporary DNS failure is `failed` with `temporary: true`, so callers never demote a domain for
 * a resolver hiccup. Lookups bypass the cache: verification wants what the world sees now.
 */
import { getDomain } from 'tldts';
import type { Config } from '../platform/config/schema.js';
import type { DnsResolver } from '../platform/dns/resolver.js';
import type { ExpectedRecord } from './records.js';
import { checkSpf, type SpfTarget } from './spf.js';

export type RecordStatus = 'pending' | 'verified' | 'failed' | 'missing';

export interface CheckOutcome {
  readonly status: Exclude<RecordStatus, 'pending'>;
  readonly reason?: string;
  readonly temporary?: boolean;
  /** DMARC only: the published `p=` policy (`sp=` when inherited, if it has one). */
  readonly policy?: string;
  /** DMARC only: the organizational domain whose record covers this one (RFC 7489 §6.6.3). */
  readonly inherited_from?: string;
}

const FRESH = { fresh: true } as const;

function temporary(name: string, code: string): CheckOutcome {
  return {
    status: 'failed',
    reason: `the DNS lookup of ${name} failed temporarily (${code}); try again`,
    temporary: true,
  };
}

/** RFC 6376 §3.2 tag=value list; white space inside values is not significant for `p=`. */
export function parseTags(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    if (name !== '' && !tags.has(name)) tags.set(name, part.slice(eq + 1).trim());
  }
  return tags;
}

async function checkDkim(resolver: DnsResolver, record: ExpectedRecord): Promise<CheckOutcome> {
  const answer = await resolver.txt(record.host, FRESH);
  if (answer.status === 'temporary') return temporary(record.host, answer.code);
  if (answer.status !== 'found') return { status: 'failed', reason: `no DKIM record at ${record.host}` };
  const expected = parseTags(record.value).get('p');
  const keys = answer.records.map((text) => parseTags(text)).filter((tags) => tags.has('p'));
  if (keys.length === 0)
    return { status: 'failed', reason: `the TXT record at ${record.host} is not a DKIM key (no p= tag)` };
  if (keys.some((tags) => (tags.get('p') ?? '').replace(/\s+/g, '') === expected))
    return { status: 'verified' };
  if (keys.some((tags) => (tags.get('p') ?? '').replace(/\s+/g, '') === '')) {
    return {
      status: 'failed',
      reason: `the DKIM key at ${record.host} is revoked (empty p=); publish the value shown`,
    };
  }
  return {
    status: 'failed',
    reason: `the DKIM key at ${record.host} does not match this domain's key; publish the value shown`,
  };
}

const POLICIES = new Set(['none', 'quarantine', 'reject']);

/** The one DMARC record at `host` as tags, none (undefined), or why it cannot be used. */
async function dmarcRecord(
  resolver: DnsResolver,
  host: string,
): Promise<Map<string, string> | CheckOutcome | undefined> {
  const answer = await resolver.txt(host, FRESH);
  if (answer.status === 'temporary') return temporary(host, answer.code);
  const found =
    answer.status === 'found' ? answer.records.filter((text) => /^v=DMARC1\s*(;|$)/i.test(text.trim())) : [];
  if (found.length === 0) return undefined;
  if (found.length > 1) {
    return {
      status: 'failed',
      reason: `${host} has ${found.length} DMARC records; receivers ignore them all (RFC 7489 §6.6.3)`,
    };
  }
  return parseTags(found[0] as string);
}

function policyOutcome(policy: string | undefined, host: string): CheckOutcome {
  const value = policy?.toLowerCase();
  if (value === undefined || !POLICIES.has(value))
    return { status: 'failed', reason: `the DMARC record at ${host} has no valid p= policy` };
  return { status: 'verified', policy: value };
}

/**
 * The domain's own `_dmarc` record, else its organizational domain's (RFC 7489 §6.6.3: receivers
 * fall back to it, and apply its `sp=` to subdomains), found with the same Public Suffix List as
 * domain names (name.ts).
 */
async function checkDmarc(
  resolver: DnsResolver,
  record: ExpectedRecord,
  domain: string,
): Promise<CheckOutcome> {
  const own = await dmarcRecord(resolver, record.host);
  if (own instanceof Map) return policyOutcome(own.get('p'), record.host);
  if (own !== undefined) return own;
  const organizational = getDomain(domain);
  const orgHost = organizational !== null && organizational !== domain ? `_dmarc.${organizational}` : null;
  if (organizational !== null && orgHost !== null) {
    const inherited = await dmarcRecord(resolver, orgHost);
    if (inherited instanceof Map) {
      const sp = inherited.get('sp')?.toLowerCase();
      const outcome = policyOutcome(sp !== undefined && POLICIES.has(sp) ? sp : inherited.get('p'), orgHost);
      return outcome.status === 'verified' ? { ...outcome, inherited_from: organizational } : outcome;
    }
    if (inherited !== undefined) return inherited;
  }
  const where = orgHost === null ? record.host : `${record.host} nor at ${orgHost}`;
  return {
    status: 'missing',
    reason: `no DMARC record at ${where}; Gmail and Yahoo expect one (a warning only)`,
  };
}

async function checkReturnPathMx(resolver: DnsResolver, record: ExpectedRecord): Promise<CheckOutcome> {
  const answer = await resolver.mx(record.host, FRESH);
  if (answer.status === 'temporary') return temporary(record.host, answer.code);
  if (answer.status !== 'found' || answer.implicit) {
    return {
      status: 'failed',
      reason: `no MX record at ${record.host}; bounces would not reach this appliance`,
    };
  }
  const wanted = record.value.toLowerCase();
  if (answer.hosts.some((host) => host.exchange === wanted)) return { status: 'verified' };
  const seen = answer.hosts.map((host) => host.exchange).join(', ');
  return { status: 'failed', reason: `the MX of ${record.host} points to ${seen}, not ${record.value}` };
}

async function addresses(
  resolver: DnsResolver,
  name: string,
): Promise<{ found: string[]; temporary?: string }> {
  const [v4, v6] = await Promise.all([resolver.a(name, FRESH), resolver.aaaa(name, FRESH)]);
  const failure = [v4, v6].find((answer) => answer.status === 'temporary');
  const found = [...(v4.status === 'found' ? v4.records : []), ...(v6.status === 'found' ? v6.records : [])];
  return failure?.status === 'temporary' && found.length === 0
    ? { found, temporary: failure.code }
    : { found };
}

/** The tracking host must reach the same addresses as the configured tracking target. */
async function checkTracking(resolver: DnsResolver, record: ExpectedRecord): Promise<CheckOutcome> {
  const mine = await addresses(resolver, record.host);
  if (mine.temporary) return temporary(record.host, mine.temporary);
  if (mine.found.length === 0)
    return { status: 'missing', reason: `${record.host} is not published (optional)` };
  const target =
    record.type === 'CNAME' ? await addresses(resolver, record.value) : { found: [record.value] };
  if (target.temporary) return temporary(record.value, target.temporary);
  if (mine.found.some((address) => target.found.includes(address))) return { status: 'verified' };
  return {
    status: 'failed',
    reason: `${record.host} resolves to ${mine.found.join(', ')}, not to ${record.value}`,
  };
}

/**
 * The local-part of the sender SPF is checked for. Posthorn's MAIL FROM is a VERP address whose
 * local-part differs per message (`b+r<id>-<tag>`, delivery/smtp/verp.ts), and none is sent from the
 * domain itself, so no one local-part stands for them: the check uses RFC 7208 §4.3's stand-in for
 * a sender without one.
 */
const SPF_LOCAL_PART = 'postmaster';

/**
 * What SPF is checked for, as receivers of Posthorn's mail would check it: the configured sending
 * IPs (else those of `delivery.hostname`), one check each, with `delivery.hostname` (the EHLO name)
 * as HELO and `postmaster@<the domain checked>` as sender. A temporary failure looking up the
 * addresses is carried along, so that SPF cannot fail for it.
 */
export async function spfTarget(resolver: DnsResolver, config: Pick<Config, 'delivery'>): Promise<SpfTarget> {
  const { sending_ips: ips, spf_include: include, hostname } = config.delivery;
  const identity = { helo: hostname, localPart: SPF_LOCAL_PART };
  if (ips.length > 0 || include !== '') return { ips, include, ...identity };
  const [v4, v6] = await Promise.all([resolver.a(hostname, FRESH), resolver.aaaa(hostname, FRESH)]);
  const found = [...(v4.status === 'found' ? v4.records : []), ...(v6.status === 'found' ? v6.records : [])];
  const failure = v4.status === 'temporary' ? v4 : v6.status === 'temporary' ? v6 : undefined;
  return {
    ips: found,
    include: '',
    ...identity,
    hostname,
    ...(failure
      ? {
          incomplete: `the DNS lookup of ${hostname} (delivery.hostname, whose addresses SPF must authorize) failed temporarily (${failure.code})`,
        }
      : {}),
  };
}

async function checkOne(
  resolver: DnsResolver,
  record: ExpectedRecord,
  target: SpfTarget,
): Promise<CheckOutcome> {
  switch (record.purpose) {
    case 'spf':
      return fromSpf(await checkSpf(resolver, record.host, target));
    case 'dkim':
      return checkDkim(resolver, record);
    case 'dmarc':
      return checkDmarc(resolver, record, record.host.slice('_dmarc.'.length));
    case 'return_path':
      return record.type === 'MX'
        ? checkReturnPathMx(resolver, record)
        : fromSpf(await checkSpf(resolver, record.host, target));
    case 'tracking':
      return checkTracking(resolver, record);
  }
}

function fromSpf(verdict: Awaited<ReturnType<typeof checkSpf>>): CheckOutcome {
  return verdict.status === 'verified'
    ? { status: 'verified' }
    : { status: 'failed', reason: verdict.reason, temporary: verdict.temporary };
}

/** Reasons read as sentences: capitalized, ending with a full stop. */
function sentence(outcome: CheckOutcome): CheckOutcome {
  if (!outcome.reason) return outcome;
  const text = outcome.reason.charAt(0).toUpperCase() + outcome.reason.slice(1);
  return { ...outcome, reason: /[.!?]$/.test(text) ? text : `${text}.` };
}

/** Runs every record's check at once; the result is keyed by `ExpectedRecord.key`. */
export async function runChecks(
  resolver: DnsResolver,
  config: Pick<Config, 'delivery'>,
  records: readonly ExpectedRecord[],
): Promise<Map<string, CheckOutcome>> {
  const target = await spfTarget(resolver, config);
  const outcomes = await Promise.all(records.map((record) => checkOne(resolver, record, target)));
  return new Map(records.map((record, i) => [record.key, sentence(outcomes[i] as CheckOutcome)]));
}
