import test from 'ava';
import { placeholderContexts } from '../../src/templates/html-context.js';
import { segments } from '../../src/templates/placeholders.js';
import { escapeInTag, renderContent } from '../../src/templates/render.js';

const contexts: Array<[string, string[]]> = [
  ['<p>{{a}}</p>', ['text']],
  ['<a href="{{a}}" title=\'{{b}}\'>', ['text', 'text']],
  ['<a href={{a}}>', ['tag']],
  ['<a href = {{a}}>', ['tag']],
  ['<a href=https://x.dev/{{a}} class=b>{{b}}</a>', ['tag', 'text']],
  ['<td {{a}}>', ['tag']],
  ['<{{a}}>', ['tag']],
  ['</{{a}}>', ['tag']],
  ['<a href="x" {{a}}>', ['tag']],
  ['<!-- <a href={{a}}> -->{{b}}', ['text', 'text']],
  ['<style media="all">a{b:c} <a href={{a}}></style><a href={{b}}>', ['text', 'tag']],
  ['<TITLE><a href={{a}}></Title>{{b}}', ['text', 'text']],
  ['a < b {{a}} 3<4', ['text']],
  ['<a title="x > y" href={{a}}>', ['tag']],
  ['<img src={{a}}/>', ['tag']],
];

for (const [html, expected] of contexts) {
  test(`placeholderContexts(${JSON.stringify(html)})`, (t) => {
    t.deepEqual(placeholderContexts(segments(html)), expected);
  });
}

test('escapeInTag also escapes white space, "=" and backticks', (t) => {
  t.is(escapeInTag('a b\t=`"\'<>&\n'), 'a&#32;b&#9;&#61;&#96;&quot;&#39;&lt;&gt;&amp;&#10;');
});

test('a value in an unquoted attribute cannot add attributes; elsewhere it is escaped as before', (t) => {
  const value = 'https://a.dev onmouseover=alert(1) style=x';
  const rendered = renderContent(
    { subject: 's', html_body: '<a href={{u}}>{{u}}</a><a href="{{u}}">x</a>', text_body: '{{u}}' },
    { u: value },
  );
  t.is(
    rendered.html,
    '<a href=https://a.dev&#32;onmouseover&#61;alert(1)&#32;style&#61;x>https://a.dev onmouseover=alert(1) style=x</a>' +
      '<a href="https://a.dev onmouseover=alert(1) style=x">x</a>',
  );
  t.is(rendered.text, value);
});
