/**
 * SPF macros (RFC 7208 §7) are expanded as receivers expand them, for what receivers of
 * Posthorn's mail see: each sending address, `delivery.hostname` as HELO, and
 * `postmaster@<the domain>` as sender. A bad macro anywhere makes the record a `permerror`.
 */
import test, { type ExecutionContext } from 'ava';
import { expand, parseDomainSpec } from '../../src/domains/spf-macros.js';
import {
  createDomain,
  expectSpf,
  expectSpfCases,
  publish,
  SENDING_IP,
  type SpfCase,
  startDomainEnv,
} from './env.js';

const HELO = 'mta-out.posthorn.example';

/**
 * Checks `v=spf1 exists:<macro-string> -all` at `domain` for each row: it passes only when the
 * expansion is exactly the one name given an address.
 */
async function expectExpansions(
  t: ExecutionContext,
  sendingIp: string,
  rows: ReadonlyArray<readonly [string, string]>,
): Promise<void> {
  const { ph, dns } = await startDomainEnv(t, { delivery: { sending_ips: [sendingIp], hostname: HELO } });
  const domain = await createDomain(ph, 'email.example.com');
  publish(dns, domain, ['spf']);
  for (const [macro, expansion] of rows) {
    dns.set('email.example.com', 'TXT', [`v=spf1 exists:${macro} -all`]);
    dns.set(expansion, 'A', ['127.0.0.2']);
    await expectSpf(t, ph, domain.id, 'verified', `${macro} expands to ${expansion}`);
    dns.set(expansion, 'A', []);
  }
}

// RFC 7208 §7.4, for the domain email.example.com and the client 192.0.2.3. The RFC's sender is
// strong-bad@email.example.com; Posthorn's is postmaster@, so the local-part rows say postmaster,
// and the HELO (mta-out.posthorn.example) shows splitting on "-".
const ipv4Rows: ReadonlyArray<readonly [string, string]> = [
  ['%{o}.m.example.net', 'email.example.com.m.example.net'],
  ['%{d}.m.example.net', 'email.example.com.m.example.net'],
  ['%{d4}.m.example.net', 'email.example.com.m.example.net'],
  ['%{d3}.m.example.net', 'email.example.com.m.example.net'],
  ['%{d2}.m.example.net', 'example.com.m.example.net'],
  ['%{d1}.m.example.net', 'com.m.example.net'],
  ['%{dr}.m.example.net', 'com.example.email.m.example.net'],
  ['%{d2r}.m.example.net', 'example.email.m.example.net'],
  ['%{l}.m.example.net', 'postmaster.m.example.net'],
  ['%{ir}.%{v}._spf.%{d2}', '3.2.0.192.in-addr._spf.example.com'],
  ['%{lr-}.lp._spf.%{d2}', 'postmaster.lp._spf.example.com'],
  ['%{lr-}.lp.%{ir}.%{v}._spf.%{d2}', 'postmaster.lp.3.2.0.192.in-addr._spf.example.com'],
  ['%{ir}.%{v}.%{l1r-}.lp._spf.%{d2}', '3.2.0.192.in-addr.postmaster.lp._spf.example.com'],
  ['%{d2}.trusted-domains.example.net', 'example.com.trusted-domains.example.net'],
  ['%{h}.m.example.net', 'mta-out.posthorn.example.m.example.net'],
  ['%{hr-}.m.example.net', 'out.posthorn.example.mta.m.example.net'],
  ['%{h2r-.}.m.example.net', 'out.mta.m.example.net'],
  ['%{p}.%{i}.m.example.net', 'unknown.192.0.2.3.m.example.net'],
];

test('the RFC 7208 §7.4 table expands as written there, for its sender strong-bad@email.example.com', (t) => {
  const context = {
    sender: 'strong-bad@email.example.com',
    domain: 'email.example.com',
    ip: '192.0.2.3',
    helo: 'mx.example.org',
  };
  const table: Array<[string, string]> = [
    ['%{s}', 'strong-bad@email.example.com'],
    ['%{o}', 'email.example.com'],
    ['%{d}', 'email.example.com'],
    ['%{d4}', 'email.example.com'],
    ['%{d3}', 'email.example.com'],
    ['%{d2}', 'example.com'],
    ['%{d1}', 'com'],
    ['%{dr}', 'com.example.email'],
    ['%{d2r}', 'example.email'],
    ['%{l}', 'strong-bad'],
    ['%{l-}', 'strong.bad'],
    ['%{lr}', 'strong-bad'],
    ['%{lr-}', 'bad.strong'],
    ['%{l1r-}', 'strong'],
    ['%{ir}.%{v}._spf.%{d2}', '3.2.0.192.in-addr._spf.example.com'],
    ['%{lr-}.lp._spf.%{d2}', 'bad.strong.lp._spf.example.com'],
    ['%{lr-}.lp.%{ir}.%{v}._spf.%{d2}', 'bad.strong.lp.3.2.0.192.in-addr._spf.example.com'],
    ['%{ir}.%{v}.%{l1r-}.lp._spf.%{d2}', '3.2.0.192.in-addr.strong.lp._spf.example.com'],
    ['%{d2}.trusted-domains.example.net', 'example.com.trusted-domains.example.net'],
  ];
  for (const [macro, expansion] of table)
    t.is(expand(parseDomainSpec(macro, macro).tokens, context), expansion, macro);
  const ipv6 = { ...context, ip: '2001:db8::cb01' };
  t.is(
    expand(parseDomainSpec('%{ir}.%{v}._spf.%{d2}', 'ipv6').tokens, ipv6),
    '1.0.b.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6._spf.example.com',
  );
});

test('the macro examples of RFC 7208 §7.4 expand to the names receivers look up', async (t) => {
  await expectExpansions(t, '192.0.2.3', ipv4Rows);
});

test('for an IPv6 sending address, %{i} is its nibbles and %{v} is ip6', async (t) => {
  await expectExpansions(t, '2001:db8::cb01', [
    [
      '%{ir}.%{v}._spf.%{d2}',
      '1.0.b.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6._spf.example.com',
    ],
  ]);
});

const cases: readonly SpfCase[] = [
  [
    'exists.example',
    'v=spf1 exists:%{i}.%{l}._spf.%{d} -all',
    (dns) => dns.set(`${SENDING_IP}.postmaster._spf.exists.example`, 'A', ['127.0.0.2']),
    'verified',
  ],
  [
    'exists-other.example',
    'v=spf1 exists:%{i}.%{l}._spf.%{d} -all',
    (dns) => dns.set(`${SENDING_IP}.other._spf.exists-other.example`, 'A', ['127.0.0.2']),
    /does not authorize 192\.0\.2\.10\.$/,
  ],
  [
    'redirect.example',
    'v=spf1 redirect=_spf.%{d2}',
    (dns) => dns.set('_spf.redirect.example', 'TXT', [`v=spf1 ip4:${SENDING_IP} -all`]),
    'verified',
  ],
  [
    // Inside an include, %{d} is the included domain; %{o} stays the sender's.
    'include.example',
    'v=spf1 include:_i.%{d} -all',
    (dns) => {
      dns.set('_i.include.example', 'TXT', ['v=spf1 exists:%{d}.%{o}.ok.example.net -all']);
      dns.set('_i.include.example.include.example.ok.example.net', 'A', ['127.0.0.2']);
    },
    'verified',
  ],
  [
    'unknown-letter.example',
    `v=spf1 ip4:${SENDING_IP} exists:%{x}.example.net -all`,
    () => {},
    /is invalid: "exists:%\{x\}\.example\.net" uses %\{x\}, which is not an SPF macro/,
  ],
  [
    'bare-percent.example',
    `v=spf1 ip4:${SENDING_IP} exists:%(ir).sbl.example.net -all`,
    () => {},
    /is invalid: "exists:%\(ir\)\.sbl\.example\.net" has a "%" that starts no macro/,
  ],
  [
    'zero-parts.example',
    `v=spf1 ip4:${SENDING_IP} a:%{d0}.example.net -all`,
    () => {},
    /is invalid: "a:%\{d0\}\.example\.net" keeps 0 parts/,
  ],
  [
    'unclosed-redirect.example',
    'v=spf1 redirect=_spf.%{d',
    () => {},
    /is invalid: "redirect=_spf\.%\{d" has a "%" that starts no macro/,
  ],
  [
    'exp-letter.example',
    `v=spf1 ip4:${SENDING_IP} -all exp=%{r}.example.net`,
    () => {},
    /"exp=%\{r\}\.example\.net" uses %\{r\}, which is allowed only in explanation text/,
  ],
  [
    'unknown-modifier.example',
    `v=spf1 ip4:${SENDING_IP} -all foo=%abc`,
    () => {},
    /is invalid: "foo=%abc" has a "%" that starts no macro/,
  ],
  [
    'two-exp.example',
    `v=spf1 ip4:${SENDING_IP} -all exp=a.example.net exp=b.example.net`,
    () => {},
    /is invalid: the SPF record has two exp= modifiers/,
  ],
  [
    'ip-as-host.example',
    `v=spf1 a:${SENDING_IP} -all`,
    () => {},
    /is invalid: "a:192\.0\.2\.10" does not name a domain/,
  ],
  [
    'explained.example',
    'v=spf1 -all exp=why.%{d}',
    (dns) =>
      dns.set('why.explained.example', 'TXT', [
        '%{s} may not send from %{c} (%{i}, %{v}) via %{h};%_checked by %{r} for %{p} at %{t}',
      ]),
    /^SPF record at explained\.example does not authorize 192\.0\.2\.10; its explanation: "postmaster@explained\.example may not send from 192\.0\.2\.10 \(192\.0\.2\.10, in-addr\) via mta-out\.posthorn\.example; checked by unknown for unknown at \d{10}"\.$/,
  ],
  [
    // RFC 7208 §6.2: an explanation with a bad macro is no explanation.
    'explained-badly.example',
    'v=spf1 -all exp=why.%{d}',
    (dns) => dns.set('why.explained-badly.example', 'TXT', ['The %{x}-files.']),
    /does not authorize 192\.0\.2\.10\.$/,
  ],
];

test('macros in exists, include, redirect and exp expand for the check; a bad macro is permerror', async (t) => {
  const env = await startDomainEnv(t, { delivery: { hostname: HELO } });
  await expectSpfCases(t, env, cases);
});

test('an IPv6 sending address is shown in an explanation as written by RFC 5952', async (t) => {
  const { ph, dns } = await startDomainEnv(t, { delivery: { sending_ips: ['2001:DB8:0:0:0:0:0:CB01'] } });
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain, ['spf']);
  dns.set('example.com', 'TXT', ['v=spf1 -all exp=why.%{d}']);
  dns.set('why.example.com', 'TXT', ['%{c} (%{v}) is not ours']);
  await expectSpf(t, ph, domain.id, /its explanation: "2001:db8::cb01 \(ip6\) is not ours"/, 'ipv6');
});
