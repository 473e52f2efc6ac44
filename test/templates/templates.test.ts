import test from 'ava';
import { type Posthorn, startPosthorn } from '../helpers/server.js';

const welcome = {
  slug: 'welcome',
  name: 'Welcome',
  subject: 'Welcome, {{name}}',
  html_body: '<p>Hi {{name}}, <a href="{{url}}">start here</a></p>',
  text_body: 'Hi {{name}}, start here: {{url}}',
  variables: ['name', 'url'],
};

async function create(ph: Posthorn, body: Record<string, unknown> = welcome, key?: string) {
  const res = await ph.request('POST', '/v1/templates', { body, ...(key ? { key } : {}) });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

test('POST /v1/templates creates version 1 as an unpublished draft', async (t) => {
  const ph = await startPosthorn(t);
  const res = await ph.request('POST', '/v1/templates', { body: welcome });
  t.is(res.status, 201);
  t.regex(res.body.id, /^tpl_/);
  t.like(res.body, {
    slug: 'welcome',
    name: 'Welcome',
    subject: 'Welcome, {{name}}',
    variables: ['name', 'url'],
    version: 1,
    published_version: null,
    has_unpublished_changes: true,
  });
});

test('PUT saves a new immutable draft version; the history lists every version with the published one', async (t) => {
  const ph = await startPosthorn(t);
  const tpl = await create(ph);
  await ph.request('POST', `/v1/templates/${tpl.id}/publish`);
  const put = await ph.request('PUT', `/v1/templates/${tpl.id}`, {
    body: { ...welcome, slug: undefined, subject: 'Hello again, {{name}}' },
  });
  t.is(put.status, 200);
  t.like(put.body, { version: 2, published_version: 1, slug: 'welcome', subject: 'Hello again, {{name}}' });
  const history = await ph.request('GET', `/v1/templates/${tpl.id}/versions`);
  t.is(history.status, 200);
  t.is(history.body.published_version, 1);
  t.deepEqual(
    history.body.data.map((v: { version: number; status: string; subject: string }) => [
      v.version,
      v.status,
      v.subject,
    ]),
    [
      [2, 'draft', 'Hello again, {{name}}'],
      [1, 'published', 'Welcome, {{name}}'],
    ],
  );
  t.truthy(history.body.data[1].published_at);
  t.is(history.body.data[0].published_at, null);
});

test('publish makes the current draft what sends render; rollback makes an earlier version render again', async (t) => {
  const ph = await startPosthorn(t);
  const { templates } = ph.server.services;
  const projectId = ph.owner.projectId;
  const tpl = await create(ph);
  await t.throwsAsync(templates.renderForSend(projectId, 'welcome', { name: 'Ann', url: 'https://a.dev' }), {
    message: /template: "welcome" has no published version/,
  });
  const published = await ph.request('POST', `/v1/templates/${tpl.id}/publish`);
  t.is(published.status, 200);
  t.like(published.body, { version: 1, published_version: 1, has_unpublished_changes: false });
  await ph.request('PUT', `/v1/templates/${tpl.id}`, { body: { ...welcome, subject: 'V2 {{name}}' } });
  t.is(
    (await templates.renderForSend(projectId, 'welcome', { name: 'Ann', url: 'u' })).subject,
    'Welcome, Ann',
  );
  await ph.request('POST', '/v1/templates/welcome/publish');
  const v2 = await templates.renderForSend(projectId, tpl.id, { name: 'Ann', url: 'u' });
  t.like(v2, { templateId: tpl.id, version: 2, subject: 'V2 Ann' });
  const rolled = await ph.request('POST', `/v1/templates/${tpl.id}/rollback/1`);
  t.is(rolled.status, 200);
  t.like(rolled.body, { version: 2, published_version: 1, has_unpublished_changes: true });
  t.like(await templates.renderForSend(projectId, 'welcome', { name: 'Ann', url: 'u' }), {
    version: 1,
    subject: 'Welcome, Ann',
  });
  const history = await ph.request('GET', `/v1/templates/${tpl.id}/versions`);
  t.deepEqual(
    history.body.data.map((v: { status: string }) => v.status),
    ['draft', 'published'],
    'v2, the newest, is the current draft again; v1 is published',
  );
});

test('rollback refuses a version that does not exist (404) and the unpublished current draft (400)', async (t) => {
  const ph = await startPosthorn(t);
  const tpl = await create(ph);
  const missing = await ph.request('POST', `/v1/templates/${tpl.id}/rollback/7`);
  t.is(missing.status, 404);
  t.regex(missing.body.error, /Version 7 of template/);
  const draft = await ph.request('POST', `/v1/templates/${tpl.id}/rollback/1`);
  t.is(draft.status, 400);
  t.regex(draft.body.error, /version: 1 is the current draft/);
  const zero = await ph.request('POST', `/v1/templates/${tpl.id}/rollback/0`);
  t.is(zero.status, 400);
  t.regex(zero.body.error, /version/);
  await ph.request('POST', `/v1/templates/${tpl.id}/publish`);
  t.is(
    (await ph.request('POST', `/v1/templates/${tpl.id}/rollback/1`)).status,
    200,
    'rolling back to the published version is a no-op',
  );
});

test('renderForSend renders the published version, escaping HTML values only', async (t) => {
  const ph = await startPosthorn(t);
  const tpl = await create(ph);
  await ph.request('POST', `/v1/templates/${tpl.id}/publish`);
  const rendered = await ph.server.services.templates.renderForSend(ph.owner.projectId, 'welcome', {
    name: '<Ann & Bob>',
    url: 'https://a.dev/?x=1&y=2',
  });
  t.deepEqual(rendered, {
    templateId: tpl.id,
    version: 1,
    subject: 'Welcome, <Ann & Bob>',
    html: '<p>Hi &lt;Ann &amp; Bob&gt;, <a href="https://a.dev/?x=1&amp;y=2">start here</a></p>',
    text: 'Hi <Ann & Bob>, start here: https://a.dev/?x=1&y=2',
  });
});

test('renderForSend refuses with 400 an unknown template and variables that are not exactly the declared ones', async (t) => {
  const ph = await startPosthorn(t);
  const { templates } = ph.server.services;
  const tpl = await create(ph);
  await ph.request('POST', `/v1/templates/${tpl.id}/publish`);
  const cases: Array<[string, Record<string, string>, RegExp, string]> = [
    ['nope', {}, /template: no template "nope" exists/, 'template'],
    ['welcome', { name: 'Ann' }, /missing "url"/, 'variables.url'],
    ['welcome', { name: 'Ann', url: 'u', extra: 'x' }, /not declared "extra"/, 'variables.extra'],
  ];
  for (const [ref, variables, message, path] of cases) {
    const error = await t.throwsAsync(templates.renderForSend(ph.owner.projectId, ref, variables));
    t.is((error as { status?: number }).status, 400);
    t.regex(error?.message ?? '', message);
    t.is((error as unknown as { details: Array<{ path: string }> }).details[0]?.path, path);
  }
  const other = await ph.bootstrap();
  await t.throwsAsync(templates.renderForSend(other.projectId, 'welcome', { name: 'a', url: 'b' }), {
    message: /no template "welcome"/,
  });
});

test('GET finds a template by ID or slug; the list pages newest first without bodies', async (t) => {
  const ph = await startPosthorn(t);
  const a = await create(ph, { ...welcome, slug: 'a' });
  await create(ph, { ...welcome, slug: undefined, name: 'No slug' });
  const c = await create(ph, { ...welcome, slug: 'c' });
  t.is((await ph.request('GET', `/v1/templates/${a.id}`)).body.slug, 'a');
  t.is((await ph.request('GET', '/v1/templates/a')).body.id, a.id);
  const page = await ph.request('GET', '/v1/templates?limit=2');
  t.is(page.status, 200);
  t.deepEqual(
    page.body.data.map((x: { name: string; slug: string | null }) => x.slug),
    ['c', null],
  );
  t.true(page.body.has_more);
  t.is(page.body.data[0].id, c.id);
  t.false('html_body' in page.body.data[0]);
  const rest = await ph.request('GET', `/v1/templates?after=${page.body.data[1].id}`);
  t.deepEqual(
    rest.body.data.map((x: { slug: string }) => x.slug),
    ['a'],
  );
  t.false(rest.body.has_more);
});

test('DELETE removes the template and all its versions with 204; then it is 404', async (t) => {
  const ph = await startPosthorn(t);
  const tpl = await create(ph);
  await ph.request('PUT', `/v1/templates/${tpl.id}`, { body: welcome });
  t.is((await ph.request('DELETE', '/v1/templates/welcome')).status, 204);
  t.is((await ph.request('GET', `/v1/templates/${tpl.id}`)).status, 404);
  t.is((await ph.request('DELETE', `/v1/templates/${tpl.id}`)).status, 404);
  const versions = await ph.server.kernel.db
    .selectFrom('template_versions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  t.is(Number(versions.n), 0);
  t.is((await ph.request('POST', '/v1/templates', { body: welcome })).status, 201, 'the slug is free again');
});

test('every template route answers 404 for an unknown template', async (t) => {
  const ph = await startPosthorn(t);
  const routes: Array<[string, string, unknown]> = [
    ['GET', '/v1/templates/tpl_missing', undefined],
    ['PUT', '/v1/templates/missing', welcome],
    ['DELETE', '/v1/templates/missing', undefined],
    ['GET', '/v1/templates/missing/versions', undefined],
    ['POST', '/v1/templates/missing/check', undefined],
    ['POST', '/v1/templates/missing/publish', undefined],
    ['POST', '/v1/templates/missing/rollback/1', undefined],
  ];
  for (const [method, path, body] of routes) {
    const res = await ph.request(method, path, body ? { body } : {});
    t.is(res.status, 404, `${method} ${path}`);
    t.regex(res.body.error, /^Template (tpl_)?missing was not found\.$/);
  }
});

test('a project never sees or changes another project’s templates, and slugs are per project', async (t) => {
  const ph = await startPosthorn(t);
  const other = await ph.bootstrap();
  const tpl = await create(ph);
  for (const [method, path] of [
    ['GET', `/v1/templates/${tpl.id}`],
    ['GET', '/v1/templates/welcome'],
    ['DELETE', `/v1/templates/${tpl.id}`],
    ['POST', `/v1/templates/${tpl.id}/publish`],
    ['GET', `/v1/templates/${tpl.id}/versions`],
  ] as const) {
    t.is((await ph.request(method, path, { key: other.apiKey })).status, 404, `${method} ${path}`);
  }
  t.deepEqual((await ph.request('GET', '/v1/templates', { key: other.apiKey })).body, {
    data: [],
    has_more: false,
  });
  t.is((await ph.request('POST', '/v1/templates', { key: other.apiKey, body: welcome })).status, 201);
  t.is((await ph.request('GET', `/v1/templates/${tpl.id}`)).body.version, 1);
});

test('a slug already used in the project is refused with 409, on create and on update', async (t) => {
  const ph = await startPosthorn(t);
  await create(ph);
  const other = await create(ph, { ...welcome, slug: 'other' });
  const dup = await ph.request('POST', '/v1/templates', { body: welcome });
  t.is(dup.status, 409);
  t.regex(dup.body.error, /slug: "welcome" is already used/);
  const put = await ph.request('PUT', `/v1/templates/${other.id}`, { body: welcome });
  t.is(put.status, 409);
  const keep = await ph.request('PUT', `/v1/templates/${other.id}`, { body: { ...welcome, slug: 'other' } });
  t.is(keep.status, 200, 'a template keeps its own slug');
});

test('invalid template requests are refused with 400 naming the field', async (t) => {
  const ph = await startPosthorn(t);
  const cases: Array<[Record<string, unknown>, RegExp, string]> = [
    [{ ...welcome, name: undefined }, /name/, 'name'],
    [{ ...welcome, name: 'x'.repeat(81) }, /name/, 'name'],
    [{ ...welcome, subject: undefined }, /subject/, 'subject'],
    [{ ...welcome, subject: `{{name}}{{url}}${'x'.repeat(300)}` }, /subject/, 'subject'],
    [
      { ...welcome, html_body: undefined, text_body: undefined },
      /at least one of html_body and text_body/,
      'html_body',
    ],
    [{ ...welcome, variables: undefined }, /variables/, 'variables'],
    [{ ...welcome, variables: Array.from({ length: 51 }, (_, i) => `v${i}`) }, /variables/, 'variables'],
    [{ ...welcome, variables: ['name', 'u'.repeat(65)] }, /variables\[1\]/, 'variables[1]'],
    [{ ...welcome, variables: ['name', 'url', 'name'] }, /"name" is listed twice/, 'variables[2]'],
    [{ ...welcome, variables: ['name', 'has space'] }, /variables\[1\]/, 'variables[1]'],
    [{ ...welcome, slug: 'Not A Slug' }, /slug/, 'slug'],
    [{ ...welcome, slug: 'double--hyphen' }, /slug/, 'slug'],
    [{ ...welcome, html: '<p>x</p>' }, /html/, 'html'],
  ];
  for (const [body, message, path] of cases) {
    const res = await ph.request('POST', '/v1/templates', { body });
    t.is(res.status, 400, JSON.stringify(body).slice(0, 120));
    t.regex(res.body.error, message);
    t.is(res.body.details?.[0]?.path, path, JSON.stringify(res.body.details));
  }
});

test('the placeholders used must equal the declared variables; a 400 names the extra and the missing ones', async (t) => {
  const ph = await startPosthorn(t);
  const undeclared = await ph.request('POST', '/v1/templates', {
    body: { ...welcome, text_body: 'Hi {{name}} from {{company}}', variables: ['name', 'url'] },
  });
  t.is(undeclared.status, 400);
  t.regex(undeclared.body.error, /text_body uses \{\{company\}\}, which variables does not declare/);
  const unused = await ph.request('POST', '/v1/templates', {
    body: { ...welcome, variables: ['name', 'url', 'plan'] },
  });
  t.is(unused.status, 400);
  t.regex(unused.body.error, /variables\[2\] "plan" is declared but no placeholder uses it/);
  t.deepEqual(unused.body.details, [
    { path: 'variables[2]', message: '"plan" is declared but no placeholder uses it' },
  ]);
  const malformed = await ph.request('POST', '/v1/templates', {
    body: { ...welcome, subject: 'Hi {{first name}} {{name}}' },
  });
  t.is(malformed.status, 400);
  t.regex(malformed.body.error, /subject \{\{first name\}\} is not a valid placeholder/);
  const put = await ph.request('PUT', `/v1/templates/${(await create(ph)).id}`, {
    body: { ...welcome, variables: ['name'] },
  });
  t.is(put.status, 400);
  t.regex(put.body.error, /uses \{\{url\}\}/);
});

test('template routes enforce templates:read and templates:write', async (t) => {
  const ph = await startPosthorn(t);
  const tpl = await create(ph);
  const reader = await ph.createKey(ph.owner.projectId, ['templates:read']);
  const unrelated = await ph.createKey(ph.owner.projectId, ['domains:read']);
  t.is((await ph.request('GET', '/v1/templates', { key: reader })).status, 200);
  t.is((await ph.request('GET', `/v1/templates/${tpl.id}/versions`, { key: reader })).status, 200);
  t.is((await ph.request('POST', `/v1/templates/${tpl.id}/check`, { key: reader })).status, 200);
  for (const [method, path, body] of [
    ['POST', '/v1/templates', welcome],
    ['PUT', `/v1/templates/${tpl.id}`, welcome],
    ['DELETE', `/v1/templates/${tpl.id}`, undefined],
    ['POST', `/v1/templates/${tpl.id}/publish`, undefined],
    ['POST', `/v1/templates/${tpl.id}/rollback/1`, undefined],
  ] as const) {
    const res = await ph.request(method, path, { key: reader, ...(body ? { body } : {}) });
    t.is(res.status, 403, `${method} ${path}`);
    t.regex(res.body.error, /templates:write/);
  }
  const get = await ph.request('GET', `/v1/templates/${tpl.id}`, { key: unrelated });
  t.is(get.status, 403);
  t.regex(get.body.error, /templates:read/);
});
