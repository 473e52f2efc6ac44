/**
 * A Posthorn with a real loopback DNS server as its resolver, and helpers that publish a
 * domain's records the way an operator would (TXT values as the split strings the API gives).
 */
import type { ExecutionContext } from 'ava';
import { type DnsTestServer, startDnsServer } from '../helpers/dns-server.js';
import { type ConfigOverrides, type Posthorn, startPosthorn } from '../helpers/server.js';
import { query } from '../helpers/sql.js';

export const SENDING_IP = '192.0.2.10';
export const MX_HOST = 'mx.posthorn.example';
/**
 * A tracking host for tests that need its record: with the test server's public URL at 127.0.0.1,
 * a local address, the tracking record is withheld.
 */
export const WITH_TRACKING = { tracking: { domain: '198.51.100.20' } } as const;

export interface DomainEnv {
  readonly ph: Posthorn;
  readonly dns: DnsTestServer;
}

export interface RecordView {
  purpose: string;
  type: string;
  host: string;
  value: string;
  value_strings?: string[];
  priority?: number;
  status: string;
  reason?: string;
  policy?: string;
  inherited_from?: string;
  required: boolean;
}

export interface DomainView {
  id: string;
  name: string;
  status: string;
  records: RecordView[];
}

export async function startDomainEnv(
  t: ExecutionContext,
  overrides: ConfigOverrides = {},
): Promise<DomainEnv> {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const ph = await startPosthorn(t, {
    ...overrides,
    dns: { servers: [dns.address], ...overrides.dns },
    delivery: { sending_ips: [SENDING_IP], ...overrides.delivery },
    smtp_in: { hostname: MX_HOST, ...overrides.smtp_in },
  });
  return { ph, dns };
}

/** Publishes every record of the domain as given, except the purposes listed in `skip`. */
export function publish(dns: DnsTestServer, domain: DomainView, skip: readonly string[] = []): void {
  for (const record of domain.records) {
    if (skip.includes(record.purpose)) continue;
    if (record.type === 'TXT') {
      dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
    } else if (record.type === 'MX') {
      dns.set(record.host, 'MX', [{ preference: record.priority ?? 10, exchange: record.value }]);
    } else if (record.type === 'A') {
      dns.set(record.host, 'A', [record.value]);
    }
  }
}

export function record(domain: DomainView, purpose: string, type?: string): RecordView {
  const found = domain.records.find((r) => r.purpose === purpose && (type === undefined || r.type === type));
  if (!found) throw new Error(`no ${purpose} record`);
  return found;
}

/**
 * Verifies the domain and checks its SPF record: `expected` is the status, or a pattern its reason
 * must match when it failed. `name` labels the case in a table of them.
 */
export async function expectSpf(
  t: ExecutionContext,
  ph: Posthorn,
  domainId: string,
  expected: string | RegExp,
  name: string,
): Promise<void> {
  const res = await ph.request('POST', `/v1/domains/${domainId}/verify`);
  const check = record(res.body, 'spf');
  if (typeof expected === 'string') t.is(check.status, expected, `${name}: ${check.reason}`);
  else {
    t.is(check.status, 'failed', name);
    t.regex(check.reason ?? '', expected, name);
  }
}

/** One row of an SPF table: the domain, its SPF record, what else its zone holds, and `expected` (expectSpf). */
export type SpfCase = readonly [
  name: string,
  spf: string,
  zone: (dns: DnsTestServer) => void,
  expected: string | RegExp,
];

/** Creates and publishes each case's domain with its SPF record and zone, then checks it (expectSpf). */
export async function expectSpfCases(
  t: ExecutionContext,
  env: DomainEnv,
  cases: readonly SpfCase[],
): Promise<void> {
  for (const [name, spf, zone, expected] of cases) {
    const domain = await createDomain(env.ph, name);
    publish(env.dns, domain, ['spf']);
    env.dns.set(name, 'TXT', [spf]);
    zone(env.dns);
    await expectSpf(t, env.ph, domain.id, expected, name);
  }
}

export async function createDomain(ph: Posthorn, name: string, key?: string): Promise<DomainView> {
  const res = await ph.request<DomainView>('POST', '/v1/domains', {
    body: { name },
    ...(key ? { key } : {}),
  });
  if (res.status !== 201) throw new Error(`creating ${name}: ${res.status} ${res.text}`);
  return res.body;
}

export async function eventsOf(
  ph: Posthorn,
  projectId: string,
): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const rows = await query<{ type: string; data: string }>(
    ph.server.kernel.store,
    "select type, data from events where project_id = ? and type like 'domain.%' order by id",
    projectId,
  );
  return rows.map((row) => ({ type: row.type, data: JSON.parse(row.data) as Record<string, unknown> }));
}
