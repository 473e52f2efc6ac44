/**
 * What a template version may hold at save: placeholders that can be filled, a subject a send
 * could carry, and variable names a send's JSON can name.
 */
import test from 'ava';
import { rows, verifiedDomain } from '../emails/helpers.js';
import { type Posthorn, startPosthorn } from '../helpers/server.js';

const save = (ph: Posthorn, body: Record<string, unknown>) =>
  ph.request('POST', '/v1/templates', {
    body: { name: 'T', subject: 's', text_body: 'x', variables: [], ...body },
  });

test('an unclosed {{ or a placeholder missing a brace is refused with 400 naming the field', async (t) => {
  const ph = await startPosthorn(t);
  const cases: Array<[Record<string, unknown>, string, string]> = [
    [{ subject: 'Hello {{name}', variables: [] }, 'subject', '{{name} is not a valid placeholder'],
    [{ text_body: 'x {{ name' }, 'text_body', '{{ name is not a valid placeholder'],
    [{ subject: 'Hello {name}}' }, 'subject', '{name}} is not a valid placeholder'],
    [{ html_body: '<p>{{{raw}}}</p>' }, 'html_body', '{{{raw}}} is not a valid placeholder'],
  ];
  for (const [body, path, message] of cases) {
    const res = await save(ph, body);
    t.is(res.status, 400, JSON.stringify(body));
    t.is(res.body.details[0].path, path);
    t.true(res.body.details[0].message.startsWith(message), res.body.details[0].message);
  }
});

test('a lone }} is text, so minified CSS and JSON-LD save and send as they are', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const html =
    '<style>@media (max-width:600px){.a{display:none}}</style><script type="application/ld+json">{"a":{"b":1}}</script><p>{{name}}</p>';
  const res = await save(ph, { html_body: html, variables: ['name'], text_body: undefined });
  t.is(res.status, 201, res.text);
  await ph.request('POST', `/v1/templates/${res.body.id}/publish`);
  const sent = await ph.request('POST', '/v1/emails', {
    body: {
      from: 'hello@acme.test',
      to: ['ann@example.com'],
      template: res.body.id,
      variables: { name: 'Ann' },
    },
  });
  t.is(sent.status, 202, sent.text);
  t.is(
    (await rows<{ html: string }>(ph, 'select html from message_bodies'))[0]?.html,
    html.replace('{{name}}', 'Ann'),
  );
});

test('"__proto__" cannot be a variable: refused at save, as a send could never carry it', async (t) => {
  const ph = await startPosthorn(t);
  const declared = await save(ph, { subject: 'hi {{__proto__}}', variables: ['__proto__'] });
  t.is(declared.status, 400);
  t.deepEqual(
    declared.body.details.map((d: { path: string }) => d.path),
    ['variables[0]'],
  );
  t.regex(declared.body.error, /cannot be "__proto__"/);
  const used = await save(ph, { subject: 'hi {{__proto__}}' });
  t.is(used.status, 400);
  t.regex(used.body.error, /subject \{\{__proto__\}\} is not a valid placeholder/);
});

test('"constructor" and "prototype" are ordinary variables: saved, required and rendered', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const res = await save(ph, {
    subject: 'hi {{constructor}} {{prototype}}',
    variables: ['constructor', 'prototype'],
  });
  t.is(res.status, 201, res.text);
  await ph.request('POST', `/v1/templates/${res.body.id}/publish`);
  const send = (variables: Record<string, string>) =>
    ph.request('POST', '/v1/emails', {
      body: { from: 'hello@acme.test', to: ['ann@example.com'], template: res.body.id, variables },
    });
  const missing = await send({ prototype: 'p' });
  t.is(missing.status, 400);
  t.regex(missing.body.error, /missing "constructor"/);
  t.is((await send({ constructor: 'c', prototype: 'p' })).status, 202);
  t.is((await rows<{ subject: string }>(ph, 'select subject from messages'))[0]?.subject, 'hi c p');
});
