/**
 * Whether the names and addresses this appliance tells the world about are public: the EHLO name
 * (`delivery.hostname`, which a sending address's PTR must name), the addresses SPF authorizes
 * (`delivery.sending_ips`, else the `a:` of `delivery.hostname`), the inbound MX host
 * (`smtp_in.hostname`) and the host of links (`tracking.domain`, else `server.public_url`).
 *
 * Two kinds of value are not public. A `local` one names this very host wherever it is read
 * (`localhost`, a name of one label, a loopback or unspecified address): a DNS record holding it
 * is one Posthorn's own verifier rejects (SPF's `a:localhost`) or one that points every receiver at
 * itself, so such records are withheld and the issue is `required`. A `special` one lies in a
 * special-use range or top-level domain (private and documentation addresses, `.test`,
 * `.internal`): fine on a closed network with its own DNS, never seen from the internet, so the
 * record is proposed and the issue is `advised`. The defaults are all local: a fresh install
 * says which keys to set (the domain response, `config check`, `serve` and `doctor`).
 */
import { isIP } from 'node:net';
import { specialRange } from '../net/address-ranges.js';
import type { Config } from './schema.js';

/** What a value is used for in the DNS records Posthorn proposes. */
export type IdentityUse = 'spf' | 'bounce_mx' | 'tracking';

export interface IdentityIssue {
  /** `required`: mail cannot go out right (and `withholds` records); `advised`: not seen from the internet. */
  readonly level: 'required' | 'advised';
  /** The config keys to set, the usual one first. */
  readonly keys: readonly string[];
  /** The proposed records left out until the keys are set. */
  readonly withholds: readonly IdentityUse[];
  /** What is wrong, and why it matters. */
  readonly problem: string;
  /** What to set. */
  readonly fix: string;
  /** One sentence: the problem, then the fix. */
  readonly message: string;
}

export type IdentityConfig = Pick<Config, 'delivery' | 'smtp_in' | 'tracking' | 'server'>;

export type Reach =
  | { readonly kind: 'public' }
  | { readonly kind: 'local' | 'special'; readonly why: string };

/** RFC 6761 and RFC 2606 names, and the usual private ones: none resolves on the internet. */
const SPECIAL_SUFFIXES = [
  'test',
  'example',
  'invalid',
  'local',
  'internal',
  'lan',
  'home.arpa',
  'localdomain',
];
const EXAMPLE_DOMAINS = ['example.com', 'example.net', 'example.org'];

/** Where a host name (or an address given for one) can be seen from. */
export function reachOf(value: string): Reach {
  if (isIP(value) !== 0) {
    const range = specialRange(value);
    return range ? { kind: range.kind, why: range.name } : { kind: 'public' };
  }
  const name = value.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return { kind: 'local', why: 'this host' };
  if (!name.includes('.')) return { kind: 'local', why: 'a name of one label' };
  const within = (suffix: string) => name === suffix || name.endsWith(`.${suffix}`);
  const suffix = SPECIAL_SUFFIXES.find(within);
  if (suffix) return { kind: 'special', why: `under .${suffix}` };
  const example = EXAMPLE_DOMAINS.find(within);
  if (example) return { kind: 'special', why: `under ${example}` };
  return { kind: 'public' };
}

/** The host tracked links use: `tracking.domain`, else the host of `server.public_url`. */
export function trackingHost(config: Pick<Config, 'tracking' | 'server'>): string {
  return config.tracking.domain || new URL(config.server.public_url).hostname.replace(/^\[|\]$/g, '');
}

const quoted = (value: string, reach: Exclude<Reach, { kind: 'public' }>) => `${value} (${reach.why})`;

/** An issue of one kind of value: `required` and withholding `uses` when local, `advised` when special. */
function issue(
  reach: Exclude<Reach, { kind: 'public' }>,
  keys: readonly string[],
  uses: readonly IdentityUse[],
  problem: string,
  fix: string,
): IdentityIssue {
  const local = reach.kind === 'local';
  return {
    level: local ? 'required' : 'advised',
    keys,
    withholds: local ? uses : [],
    problem,
    fix,
    message: `${problem}; ${fix}.`,
  };
}

function ehloIssues(hostname: string): IdentityIssue[] {
  const reach = reachOf(hostname);
  if (reach.kind === 'public') return [];
  const why =
    'receivers look up the name a sender greets with, and Gmail and Yahoo refuse mail from an address whose reverse DNS (PTR) does not name it';
  const problem =
    reach.kind === 'local'
      ? `delivery.hostname is ${quoted(hostname, reach)}: ${why}`
      : `delivery.hostname ${quoted(hostname, reach)} never resolves on the internet: ${why}`;
  return [
    issue(reach, ['delivery.hostname'], [], problem, "set delivery.hostname to this host's public name"),
  ];
}

function spfIssues(delivery: Config['delivery']): IdentityIssue[] {
  const { sending_ips: ips, spf_include: include, hostname } = delivery;
  if (ips.length === 0) {
    const reach = reachOf(hostname);
    if (include !== '' || reach.kind !== 'local') return [];
    return [
      issue(
        reach,
        ['delivery.sending_ips', 'delivery.spf_include', 'delivery.hostname'],
        ['spf'],
        `delivery.sending_ips and delivery.spf_include are empty, and delivery.hostname ${quoted(hostname, reach)} cannot stand in an SPF record, so none can be proposed`,
        'set delivery.sending_ips to the public addresses this host sends from (or delivery.spf_include, or delivery.hostname to a public name that resolves to them)',
      ),
    ];
  }
  const issues: IdentityIssue[] = [];
  for (const kind of ['local', 'special'] as const) {
    const found = ips.flatMap((ip) => {
      const reach = reachOf(ip);
      return reach.kind === kind ? [quoted(ip, reach)] : [];
    });
    if (found.length === 0) continue;
    issues.push(
      issue(
        { kind, why: '' },
        ['delivery.sending_ips'],
        ['spf'],
        `delivery.sending_ips holds ${found.join(', ')}, which receivers on the internet never see mail come from`,
        'list the public addresses this host sends from, so that SPF authorizes them',
      ),
    );
  }
  return issues;
}

function bounceMxIssues(hostname: string): IdentityIssue[] {
  const reach = reachOf(hostname);
  if (reach.kind === 'public') return [];
  const why =
    "each domain's bounce host needs an MX record naming this host's public name, so that bounces and complaints reach it";
  const problem =
    reach.kind === 'local'
      ? `smtp_in.hostname is ${quoted(hostname, reach)}: ${why}`
      : `smtp_in.hostname ${quoted(hostname, reach)} never resolves on the internet: ${why}`;
  return [
    issue(
      reach,
      ['smtp_in.hostname'],
      ['bounce_mx'],
      problem,
      "set smtp_in.hostname to this host's public name",
    ),
  ];
}

function trackingIssues(config: Pick<Config, 'tracking' | 'server'>): IdentityIssue[] {
  const host = trackingHost(config);
  const reach = reachOf(host);
  if (reach.kind === 'public') return [];
  const fromUrl = config.tracking.domain === '';
  const key = fromUrl ? 'server.public_url' : 'tracking.domain';
  const problem =
    reach.kind === 'local'
      ? `${key} names ${quoted(host, reach)}: links in sent mail (tracking, unsubscribe) would send recipients to their own machine`
      : `${key} names ${quoted(host, reach)}, which recipients on the internet cannot reach: links in sent mail would not open`;
  const fix = fromUrl
    ? 'set server.public_url to the public URL of this host (or tracking.domain to the host links use)'
    : 'set tracking.domain to the public host links use';
  return [issue(reach, fromUrl ? [key, 'tracking.domain'] : [key], ['tracking'], problem, fix)];
}

/**
 * Every identity value that is not public, each with the keys to set.
 * @example identityIssues(defaults).map((issue) => issue.keys[0])
 * // ['delivery.hostname', 'delivery.sending_ips', 'smtp_in.hostname', 'server.public_url']
 */
export function identityIssues(config: IdentityConfig): IdentityIssue[] {
  return [
    ...ehloIssues(config.delivery.hostname),
    ...spfIssues(config.delivery),
    ...bounceMxIssues(config.smtp_in.hostname),
    ...trackingIssues(config),
  ];
}

/** Whether the issues leave out records of this use. */
export function withheld(issues: readonly IdentityIssue[], use: IdentityUse): boolean {
  return issues.some((issue) => issue.withholds.includes(use));
}
