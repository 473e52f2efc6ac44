/**
 * A template send accepts only what a direct send with the same content would: the rendered
 * subject keeps the send API's subject rules, each rendered body the body limit a direct send
 * has (`limits.max_body_bytes`, its whole request), and a batch's rendered bodies that limit in
 * all. Sizes are known before the message is built, so a refusal costs no giant string.
 */
import test from 'ava';
import { count, rows, verifiedDomain } from '../emails/helpers.js';
import { cpuTimed } from '../helpers/cpu-time.js';
import { type ConfigOverrides, type Posthorn, startPosthorn } from '../helpers/server.js';

const from = 'hello@acme.test';
const to = ['ann@example.com'];

async function setup(t: Parameters<typeof startPosthorn>[0], overrides: ConfigOverrides = {}) {
  const ph = await startPosthorn(t, overrides);
  await verifiedDomain(ph);
  return ph;
}

async function published(ph: Posthorn, body: Record<string, unknown>): Promise<string> {
  const res = await ph.request('POST', '/v1/templates', { body: { name: 'T', ...body } });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text.slice(0, 300)}`);
  await ph.request('POST', `/v1/templates/${res.body.id}/publish`);
  return res.body.id;
}

const send = (ph: Posthorn, template: string, variables: Record<string, string>) =>
  ph.request('POST', '/v1/emails', { body: { from, to, template, variables } });

test('a rendered subject longer than 998 characters is a 400 naming subject; 998 is accepted', async (t) => {
  const ph = await setup(t);
  const id = await published(ph, { subject: '{{a}}'.repeat(60), text_body: 'hi {{a}}', variables: ['a'] });
  const amplified = await send(ph, id, { a: 'Z'.repeat(100_000) });
  t.is(amplified.status, 400);
  t.regex(amplified.body.error, /^subject: the template's subject would be 6000000 characters/);
  t.deepEqual(amplified.body.details, [
    { path: 'subject', message: 'would be 6000000 characters; at most 998' },
  ]);
  const single = await published(ph, { subject: 'S{{a}}', text_body: 'x {{a}}', variables: ['a'] });
  t.is((await send(ph, single, { a: 'Z'.repeat(998) })).status, 400);
  t.is((await send(ph, single, { a: 'Z'.repeat(997) })).status, 202);
  t.is(await count(ph, 'messages'), 1);
});

test('a subject that renders empty is a 400; a subject with a line break cannot be saved', async (t) => {
  const ph = await setup(t);
  const id = await published(ph, { subject: '{{s}}', text_body: 'x {{s}}', variables: ['s'] });
  const empty = await send(ph, id, { s: '' });
  t.is(empty.status, 400);
  t.regex(empty.body.error, /subject: the template's subject would be empty/);
  t.is((await send(ph, id, { s: ' ' })).status, 202, 'a direct send accepts a subject of one space too');
  for (const subject of ['Hello\r\nBcc: a@b.c', 'Hello\nthere', 'Hello\rthere']) {
    const res = await ph.request('POST', '/v1/templates', {
      body: { name: 'crlf', subject, text_body: 'x', variables: [] },
    });
    t.is(res.status, 400, JSON.stringify(subject));
    t.deepEqual(res.body.details, [{ path: 'subject', message: 'must not contain line breaks' }]);
  }
});

test('a body that renders empty is a 400 naming it, as a direct send with an empty body is (old: accepted and sent empty)', async (t) => {
  const ph = await setup(t);
  const id = await published(ph, {
    subject: 's',
    html_body: '{{h}}',
    text_body: '{{x}}',
    variables: ['h', 'x'],
  });
  const noHtml = await send(ph, id, { h: '', x: 'text' });
  t.is(noHtml.status, 400);
  t.regex(noHtml.body.error, /html: the template's html_body would be empty once rendered/);
  t.deepEqual(noHtml.body.details, [{ path: 'html', message: 'would be empty' }]);
  const noText = await send(ph, id, { h: '<p>hi</p>', x: '' });
  t.is(noText.status, 400);
  t.deepEqual(noText.body.details, [{ path: 'text', message: 'would be empty' }]);
  t.is(await count(ph, 'messages'), 0);
  t.is((await send(ph, id, { h: ' ', x: ' ' })).status, 202, 'a direct send accepts a body of one space too');
});

test('a subject saved with a line break before the rule is refused at send, not sent', async (t) => {
  const ph = await setup(t);
  const id = await published(ph, { subject: 'Hello', text_body: 'x', variables: [] });
  await rows(ph, 'update template_versions set subject = ?', 'Hello\r\nBcc: x@y.z');
  const res = await send(ph, id, {});
  t.is(res.status, 400);
  t.deepEqual(res.body.details, [{ path: 'subject', message: 'must not contain line breaks' }]);
  t.is(await count(ph, 'messages'), 0);
});

// Serial: its bound is on the CPU time of this process (helpers/cpu-time.ts), which a loaded host
// does not inflate as it does the wall clock; no other test of the file runs meanwhile.
test.serial(
  'a rendered html body over limits.max_body_bytes is a 400 naming html, before it is built (old: a 50 MB message)',
  async (t) => {
    const ph = await setup(t);
    const id = await published(ph, { subject: 's', html_body: '{{a}}'.repeat(200_000), variables: ['a'] });
    const { result: res, ms } = await cpuTimed(() => send(ph, id, { a: 'Y'.repeat(250) }));
    t.is(res.status, 400);
    t.true(ms < 2000, `${Math.round(ms)} ms`);
    t.regex(
      res.body.error,
      /^html: the template's html_body would be 50000000 bytes once rendered; .* at most 5242880 bytes \(limits\.max_body_bytes\)/,
    );
    t.deepEqual(res.body.details, [{ path: 'html', message: 'would be 50000000 bytes; at most 5242880' }]);
    const huge = await send(ph, id, { a: 'Y'.repeat(3000) });
    t.is(huge.status, 400, 'past the longest string V8 can build: still a 400, not a 500');
    t.is(await count(ph, 'messages'), 0);
  },
);

test('the body limit counts HTML-escaped values in UTF-8 bytes, text and both bodies together', async (t) => {
  const ph = await setup(t, { limits: { max_body_bytes: 100_000 } });
  const html = await published(ph, { subject: 's', html_body: '<p>{{a}}</p>', variables: ['a'] });
  // '&' is 5 bytes escaped: 7 + 5 × 19,998 = 99,997 fits, 7 + 5 × 19,999 = 100,002 does not.
  t.is((await send(ph, html, { a: '&'.repeat(19_998) })).status, 202);
  const escaped = await send(ph, html, { a: '&'.repeat(19_999) });
  t.is(escaped.status, 400);
  t.deepEqual(escaped.body.details, [{ path: 'html', message: 'would be 100002 bytes; at most 100000' }]);
  const text = await published(ph, { subject: 's', text_body: '{{a}}{{a}}', variables: ['a'] });
  const utf8 = await send(ph, text, { a: 'é'.repeat(25_001) });
  t.is(utf8.status, 400, '2 × 25,001 two-byte characters');
  t.deepEqual(utf8.body.details, [{ path: 'text', message: 'would be 100004 bytes; at most 100000' }]);
  const both = await published(ph, {
    subject: 's',
    html_body: '{{a}}',
    text_body: '{{a}}',
    variables: ['a'],
  });
  const together = await send(ph, both, { a: 'x'.repeat(60_000) });
  t.is(together.status, 400);
  t.regex(together.body.error, /html_body and text_body together would be 120000 bytes/);
  t.is(await count(ph, 'messages'), 1);
});

test('a batch of template items renders at most limits.max_body_bytes of bodies in all (old: 100 × the body)', async (t) => {
  const ph = await setup(t, { limits: { max_body_bytes: 100_000 } });
  const id = await published(ph, { subject: 's', text_body: '{{a}}'.repeat(10), variables: ['a'] });
  const item = { from, to, template: id, variables: { a: 'x'.repeat(4_000) } }; // 40 KB rendered
  const res = await ph.request('POST', '/v1/emails/batch', { body: { emails: [item, item, item, item] } });
  t.is(res.status, 207);
  t.deepEqual(
    res.body.data.map((r: { status_code?: number; status?: string }) => r.status_code ?? r.status),
    ['queued', 'queued', 400, 400],
  );
  t.regex(
    res.body.data[2].error,
    /^template: renders 40000 bytes of body, which would bring this batch's template items past 100000 bytes/,
  );
  t.is(await count(ph, 'messages'), 2);
});

test('a send carries at most 50 variables with names of at most 64 characters, as a template declares', async (t) => {
  const ph = await setup(t);
  const id = await published(ph, { subject: 's {{a}}', text_body: 'x', variables: ['a'] });
  const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`v${i}`, 'x']));
  const tooMany = await send(ph, id, many);
  t.is(tooMany.status, 400);
  t.regex(tooMany.body.error, /variables.*at most 50 entries/);
  const longName = await send(ph, id, { ['n'.repeat(65)]: 'x' });
  t.is(longName.status, 400);
  t.regex(longName.body.error, /variable names must be at most 64 characters/);
});
