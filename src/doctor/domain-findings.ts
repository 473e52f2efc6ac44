/**
 * SPF, DKIM and DMARC of every sending domain, and the MX of its bounce host, checked against DNS
 * now through the domains service (nothing is saved). SPF and DKIM decide whether a domain may send
 * (fail); a missing DMARC record, the return path's records, or a lookup that failed only for now
 * warn.
 */
import type { InspectedDomain as Inspected } from '../domains/service.js';
import { type Finding, fail, ok, warn } from './finding.js';

type RecordCheck = Inspected['records'][number];

const again = 'run posthorn doctor again';

function reasons(records: readonly RecordCheck[]): string {
  return records.map((record) => record.reason ?? `${record.host}: ${record.status}`).join(' ');
}

function spfFinding(domain: Inspected): Finding {
  const records = domain.records.filter((r) => r.purpose === 'spf');
  if (records.length === 0)
    return fail(
      'spf',
      `${domain.name}: no SPF record can be proposed while the config names this host locally.`,
      'set the keys the identity lines name',
      domain.name,
    );
  const bad = records.filter((r) => r.status !== 'verified');
  if (bad.length === 0) return ok('spf', `${domain.name}: the SPF record authorizes this host.`, domain.name);
  const publish = `publish at ${records[0]?.host} the TXT record ${records[0]?.value}`;
  return bad.every((r) => r.temporary)
    ? warn('spf', `${domain.name}: ${reasons(bad)}`, again, domain.name)
    : fail('spf', `${domain.name}: ${reasons(bad)}`, publish, domain.name);
}

function dkimFinding(domain: Inspected): Finding {
  const records = domain.records.filter((r) => r.purpose === 'dkim');
  const required = records.filter((r) => r.required);
  const bad = required.filter((r) => r.status !== 'verified');
  if (bad.length === 0) return ok('dkim', `${domain.name}: the DKIM key is published.`, domain.name);
  const publish = bad
    .map((r) => `publish at ${r.host} the TXT record shown by GET /v1/domains/${domain.id}`)
    .join('; ');
  return bad.every((r) => r.temporary)
    ? warn('dkim', `${domain.name}: ${reasons(bad)}`, again, domain.name)
    : fail('dkim', `${domain.name}: ${reasons(bad)}`, publish, domain.name);
}

function dmarcFinding(domain: Inspected): Finding {
  const record = domain.records.find((r) => r.purpose === 'dmarc');
  if (record?.status === 'verified') {
    const from = record.inherited_from ? ` (inherited from ${record.inherited_from})` : '';
    return ok('dmarc', `${domain.name}: DMARC policy ${record.policy}${from}.`, domain.name);
  }
  const publish = `publish at _dmarc.${domain.name} the TXT record ${record?.value ?? 'v=DMARC1; p=none'}`;
  if (record?.status === 'failed' && !record.temporary)
    return fail('dmarc', `${domain.name}: ${record.reason}`, publish, domain.name);
  return warn('dmarc', `${domain.name}: ${record?.reason ?? 'no DMARC record.'}`, publish, domain.name);
}

/** The bounce host's MX must reach this host, or asynchronous bounces and complaints are lost. */
function bounceMxFinding(domain: Inspected): Finding | undefined {
  const record = domain.records.find((r) => r.purpose === 'return_path' && r.type === 'MX');
  if (!record) return undefined;
  if (record.status === 'verified')
    return ok(
      'bounce-mx',
      `${record.host} has its MX at ${record.value}: bounces come back here.`,
      domain.name,
    );
  return warn(
    'bounce-mx',
    `${record.reason ?? `${record.host}: ${record.status}`} Bounces and complaints that arrive later are lost.`,
    `publish at ${record.host} the MX record 10 ${record.value}`,
    domain.name,
  );
}

export function domainFindings(domains: readonly Inspected[], where: string): Finding[] {
  if (domains.length === 0)
    return [
      warn(
        'domains',
        `No sending domain in ${where} yet: only the sandbox sender can send.`,
        'add one with POST /v1/domains and publish the records it returns',
      ),
    ];
  return domains.flatMap((domain) => {
    const bounce = bounceMxFinding(domain);
    return [spfFinding(domain), dkimFinding(domain), dmarcFinding(domain), ...(bounce ? [bounce] : [])];
  });
}
