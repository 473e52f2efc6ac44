/** The pure parts of validation: syntax rules, role accounts, typos and the operator list. */
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { createLogger } from '../../src/platform/log.js';
import { DisposableDomains, parseOperatorList } from '../../src/validation/disposable.js';
import { roleOf } from '../../src/validation/role.js';
import { checkSyntax } from '../../src/validation/syntax.js';
import { suggestDomain } from '../../src/validation/typo.js';

const valid: Array<[string, string]> = [
  ['ann@example.com', 'example.com'],
  ['Ann.Lee+news@Example.COM', 'example.com'],
  ["o'brien@example.ie", 'example.ie'],
  ['"ann lee"@example.com', 'example.com'],
  ['"a@b"@example.com', 'example.com'],
  ['kim@Bücher.de', 'xn--bcher-kva.de'],
  ['ü@münchen.de', 'xn--mnchen-3ya.de'],
  ['x@例え.テスト', 'xn--r8jz45g.xn--zckzah'],
  [`${'a'.repeat(64)}@example.com`, 'example.com'],
];

const invalid: Array<[string, RegExp]> = [
  ['no-at-sign', /no @/],
  ['@example.com', /nothing before the @/],
  ['ann@', /nothing after the @/],
  ['ann..lee@example.com', /two dots in a row/],
  ['.ann@example.com', /starts or ends with a dot/],
  ['ann lee@example.com', /white space/],
  ['a@b@example.com', /needs quoting \("@"\)/],
  [`${'a'.repeat(65)}@example.com`, /local part is 65 octets/],
  [`ann@${'b'.repeat(64)}.com`, /is 64 characters long/],
  ['ann@ex_ample.com', /not a host name/],
  ['ann@-example.com', /not a host name/],
  ['ann@localhost', /no dot/],
  ['ann@example..com', /empty label/],
  ['ann@example.123', /not a valid|all digits/],
  ['ann@[192.0.2.1]', /address literal/],
  ['ann@192.0.2.1', /IP address without brackets/],
  [`ann@${'abcdefghi.'.repeat(25)}com`, /octets long; RFC 5321 §4\.5\.3\.1\.3 allows 254/],
];

test('addresses RFC 5321 and RFC 6531 allow pass the syntax check', (t) => {
  for (const [address, domain] of valid) {
    const result = checkSyntax(address);
    t.true(result.ok, `${address}: ${'reason' in result ? result.reason : ''}`);
    if (result.ok) t.is(result.domain, domain, address);
  }
});

test('malformed addresses fail the syntax check with a reason', (t) => {
  for (const [address, reason] of invalid) {
    const result = checkSyntax(address);
    t.false(result.ok, address);
    if (!result.ok) t.regex(result.reason, reason, address);
  }
});

test('role accounts ignore case and +tags', (t) => {
  t.is(roleOf('Admin'), 'admin');
  t.is(roleOf('postmaster+dmarc'), 'postmaster');
  t.is(roleOf('noreply'), 'noreply');
  t.is(roleOf('ann'), undefined);
  t.is(roleOf('"admin"'), undefined);
});

test('typos of common providers are suggested, other domains left alone', (t) => {
  const cases: Array<[string, string | undefined]> = [
    ['gmial.com', 'gmail.com'],
    ['gmail.co', 'gmail.com'],
    ['hotmial.com', 'hotmail.com'],
    ['yaho.com', 'yahoo.com'],
    ['outlok.com', 'outlook.com'],
    ['gmail.com', undefined],
    ['mac.com', undefined],
    ['acme.io', undefined],
    ['example.test', undefined],
  ];
  for (const [domain, expected] of cases) t.is(suggestDomain(domain), expected, domain);
  // A listed disposable domain is taken for a typo only one edit away.
  t.is(suggestDomain('gmial.com', { strict: true }), 'gmail.com');
  t.is(suggestDomain('yopmail.com', { strict: true }), undefined);
});

test('the operator list parses additions, removals and comments, and reports lines that are no domains', (t) => {
  const parsed = parseOperatorList('a.test\n# comment\n!B.Test. # off\nbücher.test\nnonsense\n\n');
  t.deepEqual([...parsed.added], ['a.test', 'xn--bcher-kva.test']);
  t.deepEqual([...parsed.removed], ['b.test']);
  t.deepEqual(parsed.invalid, ['nonsense']);
});

test('a changed operator file is read again without a restart', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-disposable-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'list.txt');
  writeFileSync(file, 'first.test\n');
  const list = new DisposableDomains({ file, recheckMs: 0, log: createLogger('silent') });
  t.true((await list.check('first.test')).disposable);
  t.false((await list.check('second.test')).disposable);
  writeFileSync(file, 'second.test\n');
  utimesSync(file, new Date(), new Date(Date.now() + 5000));
  // The check that notices the change starts the read; a later one sees its result.
  let seen = false;
  for (let i = 0; i < 100 && !seen; i++) {
    seen = (await list.check('second.test')).disposable;
    if (!seen) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  t.true(seen);
  t.false((await list.check('first.test')).disposable);
  t.true(list.packagedCount > 1000);
});
