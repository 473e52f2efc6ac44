import test from 'ava';
import { rows, verifiedDomain } from '../emails/helpers.js';
import { startPosthorn } from '../helpers/server.js';

test('a value in an unquoted attribute is sent as one attribute value, and the check warns about it', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const created = await ph.request('POST', '/v1/templates', {
    body: {
      name: 'Unquoted',
      subject: 'Hi',
      html_body: '<a href={{url}}>Open</a> <a href="{{url}}">again</a>',
      text_body: 'Open {{url}}',
      variables: ['url'],
    },
  });
  t.is(created.status, 201);
  const check = await ph.request('POST', `/v1/templates/${created.body.id}/check`);
  const warnings = check.body.issues.map((i: { code: string; severity: string; target: string }) => [
    i.code,
    i.severity,
    i.target,
  ]);
  t.deepEqual(
    warnings.filter(([code]: [string]) => !code.startsWith('domain_')),
    [
      ['link_variable_scheme', 'warning', '{{url}}'],
      ['placeholder_unquoted_attribute', 'warning', '{{url}}'],
    ],
  );
  t.true(check.body.passed, 'warnings only');
  await ph.request('POST', `/v1/templates/${created.body.id}/publish`);
  const sent = await ph.request('POST', '/v1/emails', {
    body: {
      from: 'hello@acme.test',
      to: ['ann@example.com'],
      template: created.body.id,
      variables: { url: 'https://a.dev onmouseover=alert(1)' },
    },
  });
  t.is(sent.status, 202, sent.text);
  t.is(
    (await rows<{ html: string }>(ph, 'select html from message_bodies'))[0]?.html,
    '<a href=https://a.dev&#32;onmouseover&#61;alert(1)>Open</a> <a href="https://a.dev onmouseover=alert(1)">again</a>',
  );
});
