import test from 'ava';
import { normalizeEmail } from '../../src/platform/normalize-email.js';

const cases: Array<[string, string | undefined]> = [
  ['ann@example.com', 'ann@example.com'],
  ['  Ann.Lee@Example.COM ', 'ann.lee@example.com'],
  ['ANN+News@Example.com.', 'ann+news@example.com'],
  ['kim@Bücher.DE', 'kim@xn--bcher-kva.de'],
  ['Émile@exemple.fr', 'émile@exemple.fr'],
  ["o'brien@example.ie", "o'brien@example.ie"],
  ['a@b@example.com', undefined],
  ['no-at-sign', undefined],
  ['@example.com', undefined],
  ['ann@', undefined],
  ['ann@localhost', undefined],
  ['ann@127.0.0.1', undefined],
  ['ann@1.2', undefined],
  ['ann..lee@example.com', undefined],
  ['.ann@example.com', undefined],
  ['ann lee@example.com', undefined],
  ['ann@-bad.example', undefined],
  [`${'x'.repeat(65)}@example.com`, undefined],
];

for (const [input, expected] of cases) {
  test(`normalizeEmail(${JSON.stringify(input)}) is ${JSON.stringify(expected)}`, (t) => {
    t.is(normalizeEmail(input), expected);
  });
}
