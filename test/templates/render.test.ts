import test from 'ava';
import { scanPlaceholders } from '../../src/templates/placeholders.js';
import { escapeHtml, renderContent } from '../../src/templates/render.js';
import { assertExactVariables } from '../../src/templates/variables.js';

const escapes: Array<[string, string]> = [
  ['plain', 'plain'],
  ['<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
  ['Tom & Jerry', 'Tom &amp; Jerry'],
  ['"quoted" and \'single\'', '&quot;quoted&quot; and &#39;single&#39;'],
  ['&amp; already', '&amp;amp; already'],
  ['ünïcödé ✓', 'ünïcödé ✓'],
];

for (const [input, expected] of escapes) {
  test(`escapeHtml(${JSON.stringify(input)})`, (t) => {
    t.is(escapeHtml(input), expected);
  });
}

const content = {
  subject: 'Hello {{name}}',
  html_body: '<p>Hi {{ name }}, <a href="{{url}}">reset</a></p>',
  text_body: 'Hi {{name}}: {{url}}',
};

const renders: Array<[string, Record<string, string>, { subject: string; html: string; text: string }]> = [
  [
    'values go in as they are in subject and text, escaped in HTML',
    { name: '<b>Ann</b> & co', url: 'https://x.test/?a=1&b=2' },
    {
      subject: 'Hello <b>Ann</b> & co',
      html: '<p>Hi &lt;b&gt;Ann&lt;/b&gt; &amp; co, <a href="https://x.test/?a=1&amp;b=2">reset</a></p>',
      text: 'Hi <b>Ann</b> & co: https://x.test/?a=1&b=2',
    },
  ],
  [
    'a quote cannot break out of an attribute',
    { name: 'Ann', url: '" onclick="evil()' },
    {
      subject: 'Hello Ann',
      html: '<p>Hi Ann, <a href="&quot; onclick=&quot;evil()">reset</a></p>',
      text: 'Hi Ann: " onclick="evil()',
    },
  ],
  [
    'a value holding a placeholder is not expanded again',
    { name: '{{url}}', url: 'u' },
    { subject: 'Hello {{url}}', html: '<p>Hi {{url}}, <a href="u">reset</a></p>', text: 'Hi {{url}}: u' },
  ],
  [
    'line breaks in a subject value become spaces; the text keeps them',
    { name: 'Ann\r\nBcc: x@evil.test', url: 'u' },
    {
      subject: 'Hello Ann Bcc: x@evil.test',
      html: '<p>Hi Ann\r\nBcc: x@evil.test, <a href="u">reset</a></p>',
      text: 'Hi Ann\r\nBcc: x@evil.test: u',
    },
  ],
  [
    'empty values are allowed',
    { name: '', url: '' },
    { subject: 'Hello ', html: '<p>Hi , <a href="">reset</a></p>', text: 'Hi : ' },
  ],
];

for (const [title, variables, expected] of renders) {
  test(`rendering: ${title}`, (t) => {
    t.deepEqual(renderContent(content, variables), expected);
  });
}

test('rendering leaves an absent body absent', (t) => {
  t.deepEqual(renderContent({ subject: 'S {{a}}', html_body: null, text_body: 'T {{a}}' }, { a: '<x>' }), {
    subject: 'S <x>',
    html: null,
    text: 'T <x>',
  });
});

const scans: Array<[string, string[], string[]]> = [
  ['no placeholders', [], []],
  ['{{a}} {{ b }} {{a}}', ['a', 'b'], []],
  ['{{user.first_name}} {{order-id}} {{_x}}', ['user.first_name', 'order-id', '_x'], []],
  ['{{first name}}', [], ['{{first name}}']],
  ['{{}} and {{ 1abc }}', [], ['{{}}', '{{ 1abc }}']],
  ['{{{raw}}}', [], ['{{{raw}}}']],
  ['{ single } and {{a}', [], ['{{a}']],
];

for (const [text, names, malformed] of scans) {
  test(`scanPlaceholders(${JSON.stringify(text)})`, (t) => {
    const scan = scanPlaceholders(text);
    t.deepEqual([...scan.names], names);
    t.deepEqual([...scan.malformed], malformed);
  });
}

test('variables must be exactly the declared ones: missing and extra are both named', (t) => {
  t.notThrows(() => assertExactVariables(['a', 'b'], { b: '1', a: '2' }));
  const error = t.throws(() => assertExactVariables(['a', 'b'], { a: '1', c: '3' }));
  t.is(
    error?.message,
    `variables: must be exactly the template's declared variables (missing "b"; not declared "c").`,
  );
  t.deepEqual((error as unknown as { details: unknown }).details, [
    { path: 'variables.b', message: 'is declared by the template but missing' },
    { path: 'variables.c', message: 'is not declared by the template' },
  ]);
  const nonString = t.throws(() => assertExactVariables(['a'], { a: 1 }));
  t.regex(nonString?.message ?? '', /must be a string/);
});
