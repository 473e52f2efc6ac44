import test from 'ava';
import { parseMailbox } from '../../src/platform/mail-address.js';
import { normalizeEmail } from '../../src/platform/normalize-email.js';

// What nodemailer's SMTP client refuses in an envelope address, plus the space that only quoting allows.
const unsendable = /[\r\n<> ]/;

// Each case: what the caller wrote, and the address recipients, suppressions and throttles compare.
const accepted: Array<[string, string]> = [
  ['ann@example.net', 'ann@example.net'],
  ['Ann.Lee+news@Example.NET', 'ann.lee+news@example.net'],
  ["o'brien@example.ie", "o'brien@example.ie"],
  ['kim@Bücher.de', 'kim@xn--bcher-kva.de'],
  ['Ann Example <ann@example.net>', 'ann@example.net'],
  ['"Lee, Ann" <ann@example.net>', 'ann@example.net'],
];

for (const [input, normalized] of accepted) {
  test(`${JSON.stringify(input)} is accepted, deliverable and suppressible as ${normalized}`, (t) => {
    const parsed = parseMailbox(input);
    if (!parsed.ok) return t.fail(parsed.reason);
    t.is(parsed.value.normalized, normalized);
    t.is(normalizeEmail(parsed.value.email), normalized, 'the suppression list holds it under the same key');
    t.false(unsendable.test(parsed.value.email), 'it fits an SMTP envelope as is');
  });
}

// Each case: what the caller wrote, and the rule the refusal must state.
const refused: Array<[string, RegExp]> = [
  ['"john doe"@example.net', /quoted local part/],
  ['"a>b"@example.net', /quoted local part/],
  ['"john"@example.net', /quoted local part/],
  ['Ann <"a>b"@example.net>', /quoted local part/],
  ['"john\\"doe"@example.net', /quoted local part/],
  ['john doe@example.net', /invalid local part/],
  ['a<b@example.net', /unclosed "<"/],
  ['ann..lee@example.net', /invalid local part/],
  ['ann\u0001@example.net', /control characters/],
];

for (const [input, reason] of refused) {
  test(`${JSON.stringify(input)} is refused`, (t) => {
    const parsed = parseMailbox(input);
    t.false(parsed.ok);
    if (!parsed.ok) t.regex(parsed.reason, reason);
  });
}
