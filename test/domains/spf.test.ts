/**
 * SPF verification agrees with what receivers evaluate (RFC 7208): `mx`, dual CIDR lengths, the
 * lookup limits, and `permerror` for records receivers reject.
 */
import test from 'ava';
import {
  createDomain,
  expectSpf,
  expectSpfCases,
  publish,
  record,
  SENDING_IP,
  type SpfCase,
  startDomainEnv,
} from './env.js';

const cases: readonly SpfCase[] = [
  [
    'mx.example',
    'v=spf1 mx -all',
    (dns) => {
      dns.set('mx.example', 'MX', [{ preference: 10, exchange: 'mail.mx.example' }]);
      dns.set('mail.mx.example', 'A', [SENDING_IP]);
    },
    'verified',
  ],
  // §5.4: mx never falls back to the implicit MX, so a failing A lookup of a name without MX
  // records cannot make the check temporary (old: it did, and no receiver asks for that A).
  [
    'mx-no-implicit.example',
    'v=spf1 mx:nomx.other.example ip4:192.0.2.10 -all',
    (dns) => {
      dns.set('nomx.other.example', 'TXT', ['not a mail host']);
      dns.fail('nomx.other.example', 'servfail', 'A');
    },
    'verified',
  ],
  [
    'mx-cidr.example',
    'v=spf1 mx:other.example/24 -all',
    (dns) => {
      dns.set('other.example', 'MX', [{ preference: 10, exchange: 'mail.other.example' }]);
      dns.set('mail.other.example', 'A', ['192.0.2.99']);
    },
    'verified',
  ],
  [
    'a-cidr.example',
    'v=spf1 a:out.a-cidr.example/24//64 -all',
    (dns) => dns.set('out.a-cidr.example', 'A', ['192.0.2.99']),
    'verified',
  ],
  [
    'a-narrow.example',
    'v=spf1 a:out.a-narrow.example/30//64 -all',
    (dns) => dns.set('out.a-narrow.example', 'A', ['192.0.2.99']),
    /does not authorize 192\.0\.2\.10/,
  ],
  [
    'many-mx.example',
    `v=spf1 mx ip4:${SENDING_IP} -all`,
    (dns) => {
      const hosts = Array.from({ length: 11 }, (_, i) => ({
        preference: 10,
        exchange: `mx${i}.many-mx.example`,
      }));
      dns.set('many-mx.example', 'MX', hosts);
    },
    /The MX of many-mx\.example has 11 hosts; an SPF mx mechanism may look up at most 10/,
  ],
  [
    'unknown.example',
    `v=spf1 ip4:${SENDING_IP} bogus -all`,
    () => {},
    /SPF record at unknown\.example is invalid: "bogus" is not an SPF mechanism/,
  ],
  [
    'bad-cidr.example',
    `v=spf1 ip4:${SENDING_IP}/33 -all`,
    () => {},
    /is invalid: "ip4:192\.0\.2\.10\/33" has a prefix length over 32/,
  ],
  [
    'lookups.example',
    `v=spf1 ptr exists:%{i}.x.lookups.example ${'mx '.repeat(9)}ip4:${SENDING_IP} -all`,
    // An MX, so that the mx terms are not void lookups (a limit of its own, below).
    (dns) => dns.set('lookups.example', 'MX', [{ preference: 10, exchange: 'mail.lookups.example' }]),
    /more than 10 DNS lookups/,
  ],
  [
    // RFC 7208 §4.6.4: two lookups that find nothing (NXDOMAIN, or no records) are allowed...
    'void-2.example',
    `v=spf1 a:nx.void-2.example mx:txt-only.void-2.example ip4:${SENDING_IP} -all`,
    (dns) => dns.set('txt-only.void-2.example', 'TXT', ['unrelated']),
    'verified',
  ],
  [
    // ...a third is permerror, even before the mechanism that would match.
    'void-3.example',
    `v=spf1 a:nx.void-3.example mx:txt-only.void-3.example exists:nx2.void-3.example ip4:${SENDING_IP} -all`,
    (dns) => dns.set('txt-only.void-3.example', 'TXT', ['unrelated']),
    /more than 2 lookups that find nothing \(nx\.void-3\.example, txt-only\.void-3\.example, nx2\.void-3\.example\)/,
  ],
  [
    // For an IPv4 address receivers ask for A records: a name with only AAAA finds nothing.
    'void-family.example',
    `v=spf1 a:v6.void-family.example a:nx.void-family.example a:v6.void-family.example ip4:${SENDING_IP} -all`,
    (dns) => dns.set('v6.void-family.example', 'AAAA', ['2001:db8::1']),
    /more than 2 lookups that find nothing/,
  ],
  [
    'first-match.example',
    `v=spf1 ip4:${SENDING_IP} include:nospf.example -all`,
    (dns) => dns.set('nospf.example', 'TXT', ['unrelated']),
    'verified',
  ],
];

test('SPF mx, dual CIDR lengths, lookup and void-lookup limits, and invalid records are judged as receivers judge them', async (t) => {
  const env = await startDomainEnv(t);
  await expectSpfCases(t, env, cases);
});

test('an include: of delivery.spf_include written with a trailing dot counts', async (t) => {
  const { ph, dns } = await startDomainEnv(t, {
    delivery: { sending_ips: [], spf_include: 'spf.posthorn.example' },
  });
  dns.set('spf.posthorn.example', 'TXT', ['v=spf1 ip4:192.0.2.0/24 -all']);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain, ['spf']);
  dns.set('example.com', 'TXT', ['v=spf1 include:SPF.posthorn.example. ~all']);
  const res = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(record(res.body, 'spf').status, 'verified', record(res.body, 'spf').reason);
  t.is(res.body.status, 'verified');
});

test('each sending address is checked on its own: lookups made for one do not count for another', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { delivery: { sending_ips: [SENDING_IP, '192.0.2.11'] } });
  // For 192.0.2.11 a receiver stops at the include's first term: 2 lookups, not 11.
  dns.set('_spf.two.example', 'TXT', [`v=spf1 ip4:192.0.2.11 ${'a:out.two.example '.repeat(10)}-all`]);
  dns.set('out.two.example', 'A', ['198.51.100.1']);
  const domain = await createDomain(ph, 'two.example');
  publish(dns, domain, ['spf']);
  dns.set('two.example', 'TXT', [`v=spf1 ip4:${SENDING_IP} include:_spf.two.example -all`]);
  await expectSpf(t, ph, domain.id, 'verified', 'two addresses');
});

test('with delivery.spf_include, reaching its include ends the check, as a match ends a receiver’s', async (t) => {
  const { ph, dns } = await startDomainEnv(t, {
    delivery: { sending_ips: [], spf_include: 'spf.posthorn.example' },
  });
  dns.set('spf.posthorn.example', 'TXT', ['v=spf1 ip4:192.0.2.0/24 -all']);
  const cases: Array<[string, string, string | RegExp]> = [
    ['after.example', 'v=spf1 include:spf.posthorn.example include:nospf.example -all', 'verified'],
    ['before.example', 'v=spf1 include:nospf.example include:spf.posthorn.example -all', /No SPF record/],
    ['macro.example', 'v=spf1 include:spf.posthorn.%{d1} ~all', 'verified'],
    // Which include a receiver follows depends on the address here: none of them is known to be it.
    [
      'by-address.example',
      'v=spf1 include:%{i}._spf.posthorn.example ~all',
      /does not include include:spf\.posthorn\.example\.$/,
    ],
  ];
  for (const [name, spf, expected] of cases) {
    const domain = await createDomain(ph, name);
    publish(dns, domain, ['spf']);
    dns.set(name, 'TXT', [spf]);
    await expectSpf(t, ph, domain.id, expected, name);
  }
});
