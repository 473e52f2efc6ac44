/**
 * SPF `ptr` (RFC 7208 §5.5) and `%{p}` (§7.3) are evaluated as receivers must evaluate them: the
 * sending address's PTR names (only the first 10, §4.6.4), each validated by its A records (or
 * AAAA for an IPv6 address), then compared with the target domain.
 */
import test from 'ava';
import type { DnsTestServer } from '../helpers/dns-server.js';
import {
  createDomain,
  expectSpf,
  expectSpfCases,
  publish,
  SENDING_IP,
  type SpfCase,
  startDomainEnv,
} from './env.js';

/** Where the PTR records of SENDING_IP (192.0.2.10) are. */
const REVERSE = '10.2.0.192.in-addr.arpa';
const OTHER_IP = '192.0.2.99';

type PtrName = readonly [name: string, addresses: readonly string[]];

/** A zone: the PTR names of SENDING_IP, in this order, each with its A records (none: no such name). */
function reverse(names: readonly PtrName[]) {
  return (dns: DnsTestServer) => {
    dns.clear(REVERSE);
    const ptr = names.map(([name]) => name);
    if (ptr.length > 0) dns.set(REVERSE, 'PTR', ptr);
    for (const [name, addresses] of names) if (addresses.length > 0) dns.set(name, 'A', addresses);
  };
}

/** `count` PTR names that validate but are under example.net, not the domain checked. */
function elsewhere(count: number, tag: string): PtrName[] {
  return Array.from({ length: count }, (_, i) => [`host${i}.${tag}.example.net`, [SENDING_IP]] as const);
}

const cases: readonly SpfCase[] = [
  ['ptr.example', 'v=spf1 ptr -all', reverse([['ptr.example', [SENDING_IP]]]), 'verified'],
  // A subdomain of the target matches; DNS names compare without case.
  ['ptr-sub.example', 'v=spf1 ptr -all', reverse([['MTA1.Out.PTR-Sub.example', [SENDING_IP]]]), 'verified'],
  [
    'ptr-target.example',
    'v=spf1 ptr:out.example.net -all',
    reverse([
      ['mail.ptr-target.example', [SENDING_IP]],
      ['mta.out.example.net', [SENDING_IP]],
    ]),
    'verified',
  ],
  // A name that does not map back to the sending address is not validated: whoever holds an
  // address publishes its PTR records, and may name any domain there.
  [
    'ptr-forged.example',
    'v=spf1 ptr -all',
    reverse([['mail.ptr-forged.example', [OTHER_IP]]]),
    /does not authorize 192\.0\.2\.10\.$/,
  ],
  // Validated, but only ending with the same characters: not a subdomain.
  [
    'ptr-outside.example',
    'v=spf1 ptr -all',
    reverse([['mail.xptr-outside.example', [SENDING_IP]]]),
    /does not authorize 192\.0\.2\.10\.$/,
  ],
  // §5.5: a DNS error on a name's address lookup skips that name; the next one still validates.
  [
    'ptr-skip.example',
    'v=spf1 ptr -all',
    (dns) => {
      reverse([
        ['a.ptr-skip.example', []],
        ['b.ptr-skip.example', [SENDING_IP]],
      ])(dns);
      dns.fail('a.ptr-skip.example', 'servfail');
    },
    'verified',
  ],
  // §5.5: a DNS error on the PTR lookup is no match, not a temporary failure.
  [
    'ptr-servfail.example',
    'v=spf1 ptr -all',
    (dns) => {
      reverse([])(dns);
      dns.fail(REVERSE, 'servfail');
    },
    /^SPF record at ptr-servfail\.example does not authorize 192\.0\.2\.10\.$/,
  ],
  // §4.6.4: names past the first 10 are ignored, not an error; the 11th would match.
  [
    'ptr-eleventh-name.example',
    'v=spf1 ptr -all',
    reverse([...elsewhere(10, 'eleventh'), ['mail.ptr-eleventh-name.example', [SENDING_IP]]]),
    /does not authorize 192\.0\.2\.10\.$/,
  ],
  // No PTR names is a void lookup (§4.6.4); the names' address lookups are not.
  [
    'ptr-void.example',
    `v=spf1 a:nx.ptr-void.example ptr a:nx2.ptr-void.example ip4:${SENDING_IP} -all`,
    reverse([]),
    /more than 2 lookups that find nothing \(nx\.ptr-void\.example, 10\.2\.0\.192\.in-addr\.arpa, nx2\.ptr-void\.example\)/,
  ],
  [
    'ptr-unresolved.example',
    `v=spf1 a:nx.ptr-unresolved.example ptr ip4:${SENDING_IP} -all`,
    reverse([
      ['a.nowhere.example', []],
      ['b.nowhere.example', []],
      ['c.nowhere.example', []],
    ]),
    'verified',
  ],
  // The ptr term is one of the 10 lookups; the address lookups of its 10 names are not.
  [
    'ptr-tenth.example',
    `v=spf1 ${'a:out.ptr-tenth.example '.repeat(9)}ptr -all`,
    (dns) => {
      dns.set('out.ptr-tenth.example', 'A', ['198.51.100.1']);
      reverse([...elsewhere(9, 'tenth'), ['mail.ptr-tenth.example', [SENDING_IP]]])(dns);
    },
    'verified',
  ],
  [
    'ptr-eleventh.example',
    `v=spf1 ${'a:out.ptr-eleventh.example '.repeat(10)}ptr -all`,
    (dns) => {
      dns.set('out.ptr-eleventh.example', 'A', ['198.51.100.1']);
      reverse([['mail.ptr-eleventh.example', [SENDING_IP]]])(dns);
    },
    /more than 10 DNS lookups/,
  ],
];

test('ptr matches a validated PTR name of the sending address that is the target or below it', async (t) => {
  const env = await startDomainEnv(t);
  await expectSpfCases(t, env, cases);
});

test('only the first 10 PTR names are looked up', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'ptr-ten.example');
  publish(dns, domain, ['spf']);
  dns.set('ptr-ten.example', 'TXT', ['v=spf1 ptr -all']);
  reverse([...elsewhere(10, 'ten'), ['mail.ptr-ten.example', [SENDING_IP]]])(dns);
  await expectSpf(t, ph, domain.id, /does not authorize 192\.0\.2\.10\.$/, 'eleventh');
  t.is(dns.queries('host9.ten.example.net', 'A'), 1);
  t.is(dns.queries('mail.ptr-ten.example', 'A'), 0);
  // The same name as the 10th counts.
  reverse([...elsewhere(9, 'ten'), ['mail.ptr-ten.example', [SENDING_IP]]])(dns);
  await expectSpf(t, ph, domain.id, 'verified', 'tenth');
});

test('for an IPv6 sending address, ptr looks up ip6.arpa and validates names by their AAAA records', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { delivery: { sending_ips: ['2001:DB8::CB01'] } });
  const nibbles = '1.0.b.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa';
  dns.set(nibbles, 'PTR', ['mail.v4only.example', 'mail.six.example']);
  dns.set('mail.v4only.example', 'A', [SENDING_IP]);
  dns.set('mail.six.example', 'AAAA', ['2001:db8:0:0:0:0:0:cb01']);
  for (const [name, expected] of [
    ['six.example', 'verified'],
    ['v4only.example', /does not authorize 2001:DB8::CB01\.$/],
  ] as const) {
    const domain = await createDomain(ph, name);
    publish(dns, domain, ['spf']);
    dns.set(name, 'TXT', ['v=spf1 ptr -all']);
    await expectSpf(t, ph, domain.id, expected, name);
  }
});

test('%{p} is the validated name that is the domain, else one below it, else any, else "unknown"', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'email.example.com');
  publish(dns, domain, ['spf']);
  // A record that does not use %{p} makes no reverse lookup.
  dns.set('email.example.com', 'TXT', [`v=spf1 exists:%{i}._i.example.net -all`]);
  dns.set(`${SENDING_IP}._i.example.net`, 'A', ['127.0.0.2']);
  await expectSpf(t, ph, domain.id, 'verified', 'no %{p}');
  t.is(dns.queries(REVERSE, 'PTR'), 0);

  const rows: ReadonlyArray<readonly [string, (dns: DnsTestServer) => void, string]> = [
    [
      'the domain',
      reverse([
        ['other.example.net', [SENDING_IP]],
        ['mail.email.example.com', [SENDING_IP]],
        ['email.example.com', [SENDING_IP]],
      ]),
      'email.example.com',
    ],
    [
      'a subdomain',
      reverse([
        ['other.example.net', [SENDING_IP]],
        ['forged.email.example.com', [OTHER_IP]],
        ['mail.email.example.com', [SENDING_IP]],
      ]),
      'mail.email.example.com',
    ],
    [
      'the first validated name',
      reverse([
        ['forged.example.net', [OTHER_IP]],
        ['other.example.net', [SENDING_IP]],
        ['second.example.net', [SENDING_IP]],
      ]),
      'other.example.net',
    ],
    ['no validated name', reverse([['forged.example.net', [OTHER_IP]]]), 'unknown'],
    [
      'a failing PTR lookup',
      (dns) => {
        reverse([])(dns);
        dns.fail(REVERSE, 'servfail');
      },
      'unknown',
    ],
  ];
  dns.set('email.example.com', 'TXT', ['v=spf1 exists:%{p}._p.example.net -all']);
  for (const [name, zone, expansion] of rows) {
    zone(dns);
    dns.set(`${expansion}._p.example.net`, 'A', ['127.0.0.2']);
    await expectSpf(t, ph, domain.id, 'verified', `${name}: ${expansion}`);
    dns.set(`${expansion}._p.example.net`, 'A', []);
  }
});

test('%{p} in an explanation is the validated name', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain, ['spf']);
  dns.set('example.com', 'TXT', ['v=spf1 -all exp=why.%{d}']);
  dns.set('why.example.com', 'TXT', ['%{p} is not ours']);
  reverse([['mail.example.com', [SENDING_IP]]])(dns);
  await expectSpf(t, ph, domain.id, /its explanation: "mail\.example\.com is not ours"/, 'exp');
});

test('without a sending address (delivery.spf_include only), a term using %{p} is not looked up', async (t) => {
  const { ph, dns } = await startDomainEnv(t, {
    delivery: { sending_ips: [], spf_include: 'spf.posthorn.example' },
  });
  dns.set('spf.posthorn.example', 'TXT', ['v=spf1 ip4:192.0.2.0/24 -all']);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain, ['spf']);
  dns.set('example.com', 'TXT', [
    'v=spf1 include:%{p}._spf.posthorn.example include:spf.posthorn.example ~all',
  ]);
  await expectSpf(t, ph, domain.id, 'verified', 'include after %{p}');
  t.is(dns.queries('unknown._spf.posthorn.example', 'TXT'), 0);
});
