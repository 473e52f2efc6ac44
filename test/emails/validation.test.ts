import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { count, email, rows, verifiedDomain } from './helpers.js';

// Each case: a body change, the field the 400 must name, and the rule its message must state.
const invalid: Array<[string, Record<string, unknown>, string, RegExp]> = [
  ['no recipients', { to: [] }, 'to', /at least 1 address/],
  ['101 recipients', { to: Array.from({ length: 101 }, (_, i) => `r${i}@example.com`) }, 'to', /at most 100/],
  ['to as a string', { to: 'ann@example.com' }, 'to', /array of email addresses/],
  ['101 cc', { cc: Array.from({ length: 101 }, (_, i) => `r${i}@example.com`) }, 'cc', /at most 100/],
  ['101 bcc', { bcc: Array.from({ length: 101 }, (_, i) => `r${i}@example.com`) }, 'bcc', /at most 100/],
  ['an address without @', { to: ['ann.example.com'] }, 'to[0]', /valid email address.*no "@"/],
  ['an address without domain', { to: ['ok@example.com', 'bob@'] }, 'to[1]', /no domain/],
  ['a single-label domain', { cc: ['bob@localhost'] }, 'cc[0]', /top-level domain/],
  ['an address literal', { bcc: ['bob@[127.0.0.1]'] }, 'bcc[0]', /address literal/],
  ['an IP as domain', { to: ['bob@127.0.0.1'] }, 'to[0]', /IP address/],
  ['a non-ASCII local part', { to: ['jörg@example.com'] }, 'to[0]', /SMTPUTF8/],
  ['two @ in the local part', { to: ['a@b@example.com'] }, 'to[0]', /local part/],
  [
    'a quoted local part',
    { to: ['ann@example.com', '"john doe"@example.com'] },
    'to[1]',
    /quoted local part/,
  ],
  ['a quoted local part with ">"', { cc: ['"a>b"@example.com'] }, 'cc[0]', /quoted local part/],
  ['a quoted local part after a name', { bcc: ['Ann <"a b"@example.com>'] }, 'bcc[0]', /quoted local part/],
  [
    'a header injection in from',
    { from: 'Acme <hello@acme.test>\r\nBcc: x@evil.test' },
    'from',
    /line breaks/,
  ],
  ['an unquoted comma in a display name', { from: 'Doe, John <hello@acme.test>' }, 'from', /double quotes/],
  ['a bad reply_to', { reply_to: ['nope'] }, 'reply_to[0]', /valid email address/],
  ['no content at all', { subject: undefined, html: undefined }, '(body)', /subject with html/],
  ['subject without body', { html: undefined }, 'html', /html or text is required/],
  ['body without subject', { subject: undefined }, 'subject', /required with html or text/],
  [
    'template with subject',
    { template: 'welcome', variables: {} },
    'subject',
    /cannot be combined with template/,
  ],
  ['variables without template', { variables: { a: 'b' } }, 'variables', /only allowed with template/],
  ['an empty subject', { subject: '' }, 'subject', /must not be empty/],
  ['a subject with a line break', { subject: 'a\nb' }, 'subject', /line breaks/],
  ['send_at in the past', { send_at: '2001-01-01T00:00:00Z' }, 'send_at', /in the future/],
  [
    'send_at beyond 30 days',
    { send_at: new Date(Date.now() + 31 * 86_400_000).toISOString() },
    'send_at',
    /30 days/,
  ],
  ['send_at not a date-time', { send_at: 'tomorrow' }, 'send_at', /ISO 8601/],
  ['send_at without a zone', { send_at: '2099-01-01T00:00:00' }, 'send_at', /ISO 8601/],
  ['tags that are not strings', { tags: { plan: 3 } }, 'tags.plan', /tag values must be strings/],
  ['tags as a list', { tags: ['a'] }, 'tags', /object mapping strings to strings/],
  ['track_opens not a boolean', { track_opens: 'yes' }, 'track_opens', /true or false/],
  ['attachments', { attachments: [{ filename: 'a.pdf', content: 'AA==' }] }, 'attachments', /not supported/],
  ['a From header override', { headers: { From: 'x@evil.test' } }, 'headers', /"From" is not allowed/],
  ['a bad In-Reply-To', { headers: { 'In-Reply-To': 'not-an-id' } }, 'headers', /message ID/],
  ['a bad References', { headers: { References: '<a@b> nope' } }, 'headers', /message IDs/],
  ['a bad List-Unsubscribe', { headers: { 'List-Unsubscribe': 'https://x.test/u' } }, 'headers', /<URI>/],
  [
    'one-click without an https List-Unsubscribe',
    {
      headers: {
        'List-Unsubscribe': '<mailto:u@acme.test>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    },
    'headers',
    /https URI/,
  ],
  [
    'an In-Reply-To ID over 900 characters',
    { headers: { 'In-Reply-To': `<${'a'.repeat(891)}@acme.test>` } },
    'headers',
    /"In-Reply-To" message IDs must be at most 900 characters/,
  ],
  [
    'a References ID over 900 characters',
    { headers: { References: `<a@acme.test> <${'a'.repeat(891)}@acme.test>` } },
    'headers',
    /"References" message IDs must be at most 900 characters/,
  ],
  [
    'a References value over 4000 characters',
    { headers: { References: Array.from({ length: 300 }, (_, i) => `<m${i}@acme.test>`).join(' ') } },
    'headers',
    /"References" must be at most 4000 characters/,
  ],
  [
    'a non-ASCII In-Reply-To ID',
    { headers: { 'In-Reply-To': '<grüße@acme.test>' } },
    'headers',
    /"In-Reply-To" must be one message ID like <id@example.com>, in US-ASCII/,
  ],
  [
    'a non-ASCII List-Unsubscribe URI (IRIs are sent percent-encoded)',
    { headers: { 'List-Unsubscribe': '<https://acme.test/abmelden?grüße=1>' } },
    'headers',
    /"List-Unsubscribe" must be one or more <URI> separated by commas, in US-ASCII/,
  ],
  [
    'a List-Unsubscribe URI over 900 characters',
    { headers: { 'List-Unsubscribe': `<mailto:u@acme.test>,<https://acme.test/u?t=${'b'.repeat(879)}>` } },
    'headers',
    /"List-Unsubscribe" URIs must be at most 900 characters/,
  ],
  [
    'a display name over 256 characters',
    { from: `${'A'.repeat(257)} <hello@acme.test>` },
    'from',
    /display name longer than 256 characters/,
  ],
  [
    'a quoted display name over 256 characters',
    { reply_to: [`"${'\\"'.repeat(257)}" <r@acme.test>`] },
    'reply_to[0]',
    /display name longer than 256 characters/,
  ],
  ['an unknown field', { priority: 'high' }, 'priority', /not a supported field/],
];

for (const [title, change, path, rule] of invalid) {
  test(`a send with ${title} is refused with 400 naming ${path}`, async (t) => {
    const ph = await startPosthorn(t);
    await verifiedDomain(ph);
    const body = JSON.parse(JSON.stringify(email(change))) as Record<string, unknown>;
    const res = await ph.request('POST', '/v1/emails', { body });
    t.is(res.status, 400, res.text);
    const detail = (res.body.details as Array<{ path: string; message: string }>).find(
      (d) => d.path === path,
    );
    t.truthy(detail, `no detail for ${path}: ${res.text}`);
    t.regex(detail?.message ?? '', rule);
    t.regex(res.body.error, new RegExp(path.replace(/[[\]().]/g, '\\$&')));
    t.is(await count(ph, 'messages'), 0);
  });
}

test('malformed JSON and a missing body are refused with 400', async (t) => {
  const ph = await startPosthorn(t);
  const bad = await ph.request('POST', '/v1/emails', {
    rawBody: '{"to": [',
    headers: { 'content-type': 'application/json' },
  });
  t.is(bad.status, 400);
  t.regex(bad.body.error, /not valid JSON/);
  const none = await ph.request('POST', '/v1/emails');
  t.is(none.status, 400);
});

test('an Idempotency-Key longer than 255 characters is refused with 400 naming the header', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const res = await ph.request('POST', '/v1/emails', {
    body: email(),
    headers: { 'idempotency-key': 'k'.repeat(256) },
  });
  t.is(res.status, 400);
  t.regex(res.body.error, /Idempotency-Key: must be 1 to 255 characters/);
});

test('display names, IDN domains and the allowed headers are accepted and stored normalized', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph, 'xn--bcher-kva.test');
  const res = await ph.request('POST', '/v1/emails', {
    body: email({
      from: '"Bücher, Team" <news@Bücher.test>',
      to: ['Ann Lee <Ann@Example.COM>', 'joerg@münchen.example'],
      cc: ['ann@example.com'],
      reply_to: ['help@acme.test'],
      text: 'plain too',
      tags: { plan: 'pro' },
      headers: {
        'in-reply-to': '<a1@acme.test>',
        References: '<a0@acme.test> <a1@acme.test>',
        'List-Unsubscribe': '<https://acme.test/u/1>, <mailto:u@acme.test>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    }),
  });
  t.is(res.status, 202, res.text);
  const [message] = await rows<Record<string, string>>(
    ph,
    'select * from messages where id = ?',
    res.body.id,
  );
  if (message === undefined) return t.fail('the message is stored');
  t.is(message.from_domain, 'xn--bcher-kva.test');
  t.is(message.from_header, '"Bücher, Team" <news@Bücher.test>');
  t.deepEqual(JSON.parse(message.headers as string), {
    'In-Reply-To': '<a1@acme.test>',
    References: '<a0@acme.test> <a1@acme.test>',
    'List-Unsubscribe': '<https://acme.test/u/1>, <mailto:u@acme.test>',
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  });
  const recipients = await rows(
    ph,
    'select kind, email, display, domain from message_recipients where message_id = ? order by id',
    res.body.id,
  );
  // The cc repeats a `to` address: it is delivered once.
  t.deepEqual(recipients, [
    { kind: 'to', email: 'ann@example.com', display: 'Ann Lee <Ann@Example.COM>', domain: 'example.com' },
    {
      kind: 'to',
      email: 'joerg@xn--mnchen-3ya.example',
      display: 'joerg@münchen.example',
      domain: 'xn--mnchen-3ya.example',
    },
  ]);
});
