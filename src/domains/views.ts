/** Domain rows and their stored check results to the JSON shapes of schemas.ts. */
import type { IdentityIssue } from '../platform/config/public-identity.js';
import type { CheckOutcome, RecordStatus } from './checks.js';
import type { ExpectedRecord } from './records.js';
import type { DnsRecordView, DomainRecord } from './schemas.js';
import type { DomainRow } from './store.js';

/** What `domains.checks` holds per record key: the last outcome and when it was seen. */
export type StoredCheck = CheckOutcome & { readonly checked_at: number };
export type StoredChecks = Readonly<Record<string, StoredCheck>>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function parseChecks(row: Pick<DomainRow, 'checks'>): StoredChecks {
  return JSON.parse(row.checks) as StoredChecks;
}

export function recordStatus(checks: StoredChecks, key: string): RecordStatus {
  return checks[key]?.status ?? 'pending';
}

export function recordView(record: ExpectedRecord, checks: StoredChecks): DnsRecordView {
  const check = checks[record.key];
  return {
    purpose: record.purpose,
    type: record.type,
    host: record.host,
    name: record.name,
    value: record.value,
    ...(record.value_strings ? { value_strings: [...record.value_strings] } : {}),
    ...(record.priority !== undefined ? { priority: record.priority } : {}),
    required: record.required,
    status: check?.status ?? 'pending',
    ...(check?.reason ? { reason: check.reason } : {}),
    ...(check?.policy ? { policy: check.policy } : {}),
    ...(check?.inherited_from ? { inherited_from: check.inherited_from } : {}),
    checked_at: iso(check?.checked_at ?? null),
  };
}

/** What the domain response says of the config: which keys to set, and what waits for them. */
export function configIssueView(issue: IdentityIssue): DomainRecord['config_issues'][number] {
  type Withheld = DomainRecord['config_issues'][number]['withheld'];
  const purposes: Record<IdentityIssue['withholds'][number], Withheld> = {
    spf: ['spf', 'return_path'],
    bounce_mx: ['return_path'],
    tracking: ['tracking'],
  };
  return {
    level: issue.level,
    keys: [...issue.keys],
    withheld: [...new Set(issue.withholds.flatMap((use) => purposes[use]))],
    message: issue.message,
  };
}

export function domainView(
  row: DomainRow,
  records: readonly ExpectedRecord[],
  issues: readonly IdentityIssue[],
): DomainRecord {
  const checks = parseChecks(row);
  return {
    id: row.id,
    name: row.name,
    region: row.region,
    status: row.status,
    records: records.map((record) => recordView(record, checks)),
    config_issues: issues.map(configIssueView),
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
    verified_at: iso(row.verified_at),
    last_checked_at: iso(row.last_checked_at),
  };
}

/** The `data` of domain.* events: the domain and each record's status, without the long values. */
export function eventData(view: DomainRecord, previousStatus?: string): Record<string, unknown> {
  return {
    id: view.id,
    name: view.name,
    region: view.region,
    status: view.status,
    ...(previousStatus !== undefined ? { previous_status: previousStatus } : {}),
    records: view.records.map((record) => ({
      purpose: record.purpose,
      type: record.type,
      host: record.host,
      status: record.status,
      ...(record.reason ? { reason: record.reason } : {}),
    })),
    created_at: view.created_at,
  };
}
