import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { count, rows, verifiedDomain } from './helpers.js';

async function publishedTemplate(ph: Awaited<ReturnType<typeof startPosthorn>>) {
  const created = await ph.request('POST', '/v1/templates', {
    body: {
      slug: 'welcome',
      name: 'Welcome',
      subject: 'Hi {{name}}',
      html_body: '<p>Hello {{name}}, your plan is {{plan}}.</p>',
      text_body: 'Hello {{name}}, your plan is {{plan}}.',
      variables: ['name', 'plan'],
    },
  });
  if (created.status !== 201) throw new Error(`template create: ${created.status} ${created.text}`);
  const published = await ph.request('POST', `/v1/templates/${created.body.id}/publish`);
  if (published.status !== 200) throw new Error(`template publish: ${published.status} ${published.text}`);
  return created.body.id as string;
}

test('a template send stores the message rendered from the published version, HTML values escaped', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const templateId = await publishedTemplate(ph);
  const res = await ph.request('POST', '/v1/emails', {
    body: {
      from: 'Acme <hello@acme.test>',
      to: ['ann@example.com'],
      template: 'welcome',
      variables: { name: 'Ann <b>', plan: 'Pro & more' },
    },
  });
  t.is(res.status, 202, res.text);
  const [message] = await rows<Record<string, unknown>>(
    ph,
    'select m.*, b.html, b.text from messages m join message_bodies b on b.message_id = m.id where m.id = ?',
    res.body.id,
  );
  t.like(message, {
    subject: 'Hi Ann <b>',
    html: '<p>Hello Ann &lt;b&gt;, your plan is Pro &amp; more.</p>',
    text: 'Hello Ann <b>, your plan is Pro & more.',
    template_id: templateId,
    template_version: 1,
  });
  t.deepEqual(JSON.parse(message?.variables as string), { name: 'Ann <b>', plan: 'Pro & more' });
});

test('a template send with the wrong variables or an unknown template is refused with 400 naming the field', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  await publishedTemplate(ph);
  const base = { from: 'hello@acme.test', to: ['ann@example.com'] };
  const missing = await ph.request('POST', '/v1/emails', {
    body: { ...base, template: 'welcome', variables: { name: 'A' } },
  });
  t.is(missing.status, 400);
  t.regex(missing.body.error, /variables/);
  t.regex(missing.body.error, /plan/);
  const unknown = await ph.request('POST', '/v1/emails', {
    body: { ...base, template: 'nope', variables: {} },
  });
  t.is(unknown.status, 400);
  t.regex(unknown.body.error, /template/);
  t.is(await count(ph, 'messages'), 0);
});
