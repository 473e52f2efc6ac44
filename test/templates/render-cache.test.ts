/**
 * A send renders a template version from its cached parse: each version renders its own content,
 * a deleted template is refused whatever the cache holds, a cached version's content is not read
 * again, and the cache keeps to its bounds.
 */
import test from 'ava';
import type { KyselyPlugin } from 'kysely';
import type { Db } from '../../src/platform/db/database.js';
import type { ParsedCacheLimits } from '../../src/templates/parsed-cache.js';
import { createTemplateService } from '../../src/templates/service.js';
import { createTemplateStore, type TemplateStore } from '../../src/templates/store.js';
import { rows, verifiedDomain } from '../emails/helpers.js';
import { type Posthorn, startPosthorn } from '../helpers/server.js';

const template = (subject: string) => ({
  slug: 'receipt',
  name: 'Receipt',
  subject,
  html_body: `<p>${subject}</p><a href={{who}}>x</a>`,
  text_body: subject,
  variables: ['who'],
});

async function send(ph: Posthorn, ref: string) {
  const res = await ph.request('POST', '/v1/emails', {
    body: { from: 'hello@acme.test', to: ['ann@example.com'], template: ref, variables: { who: 'A b' } },
  });
  if (res.status !== 202) return `${res.status} ${res.body.error}`;
  const [message] = await rows<{ subject: string; html: string; text: string; template_version: number }>(
    ph,
    'select m.subject, b.html, b.text, m.template_version from messages m join message_bodies b on b.message_id = m.id where m.id = ?',
    res.body.id,
  );
  return message;
}

/** A template service of its own on the server's database (the send path's, without HTTP). */
function serviceOn(ph: Posthorn, store: TemplateStore, parsedCache?: ParsedCacheLimits) {
  const unused = async () => {
    throw new Error('the render needs no domain data');
  };
  return createTemplateService(
    store,
    { domainSummaries: unused, trackingDns: unused },
    { maxBodyBytes: ph.config.limits.max_body_bytes, ...(parsedCache ? { parsedCache } : {}) },
  );
}

/** The server's database, noting the columns of every row a query returns. */
function recordingColumns(db: Db): { db: Db; columns: Set<string> } {
  const columns = new Set<string>();
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      for (const row of args.result.rows) for (const column of Object.keys(row)) columns.add(column);
      return args.result;
    },
  };
  return { db: db.withPlugin(plugin), columns };
}

const rendered = (version: number, subject: string) => ({
  subject,
  html: `<p>${subject}</p><a href=A&#32;b>x</a>`,
  text: subject,
  template_version: version,
});

test('each version of a template renders its own content, before and after a rollback', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const created = await ph.request('POST', '/v1/templates', { body: template('One {{who}}') });
  const id = created.body.id as string;
  await ph.request('POST', `/v1/templates/${id}/publish`);
  t.deepEqual(await send(ph, 'receipt'), rendered(1, 'One A b'));
  t.is(ph.server.services.templates.parsedVersions.size, 1, 'the send parsed version 1 once and kept it');

  await ph.request('PUT', `/v1/templates/${id}`, { body: template('Two {{who}}') });
  t.deepEqual(await send(ph, 'receipt'), rendered(1, 'One A b'), 'a draft is not sent');
  await ph.request('POST', `/v1/templates/${id}/publish`);
  t.deepEqual(await send(ph, id), rendered(2, 'Two A b'));
  t.is((await ph.request('POST', `/v1/templates/${id}/rollback/1`)).status, 200);
  t.deepEqual(await send(ph, 'receipt'), rendered(1, 'One A b'));
  t.is(ph.server.services.templates.parsedVersions.size, 2);
});

test('a template deleted after its version was cached is refused; a new one with its slug renders its own', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const first = await ph.request('POST', '/v1/templates', { body: template('Old {{who}}') });
  await ph.request('POST', `/v1/templates/${first.body.id}/publish`);
  t.deepEqual(await send(ph, 'receipt'), rendered(1, 'Old A b'));
  t.is((await ph.request('DELETE', `/v1/templates/${first.body.id}`)).status, 204);

  t.is(await send(ph, 'receipt'), '400 template: no template "receipt" exists in this project.');
  t.is(await send(ph, first.body.id), `400 template: no template "${first.body.id}" exists in this project.`);
  const second = await ph.request('POST', '/v1/templates', { body: template('New {{who}}') });
  await ph.request('POST', `/v1/templates/${second.body.id}/publish`);
  t.deepEqual(await send(ph, 'receipt'), rendered(1, 'New A b'));
  t.is((await rows(ph, 'select id from messages')).length, 2);
});

test('the service keeps at most its bound of parsed versions and renders every template correctly', async (t) => {
  const ph = await startPosthorn(t);
  const templates = serviceOn(ph, createTemplateStore(ph.server.kernel.db), { maxEntries: 2, maxBytes: 1e9 });
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    const created = await templates.create(ph.owner.projectId, {
      ...template(`T${n} {{who}}`),
      slug: `t${n}`,
    });
    await templates.publish(ph.owner.projectId, created.id);
    ids.push(created.id);
  }
  for (const round of [1, 2]) {
    for (const [i, id] of ids.entries()) {
      const result = await templates.renderForSend(ph.owner.projectId, id, { who: 'Z' });
      t.is(result.subject, `T${i + 1} Z`, `round ${round}`);
      t.true(templates.parsedVersions.size <= 2, `${templates.parsedVersions.size} kept`);
    }
  }
  t.is(templates.parsedVersions.size, 2);
});

test('a send of a version already parsed reads the template and its version, never its subject or bodies again', async (t) => {
  const ph = await startPosthorn(t);
  const { db, columns } = recordingColumns(ph.server.kernel.db);
  const templates = serviceOn(ph, createTemplateStore(db));
  const created = await templates.create(ph.owner.projectId, template('Hi {{who}}'));
  await templates.publish(ph.owner.projectId, created.id);
  const content = ['subject', 'html_body', 'text_body'];

  columns.clear();
  const first = await templates.renderForSend(ph.owner.projectId, 'receipt', { who: 'Z' });
  t.is(first.subject, 'Hi Z');
  t.deepEqual(
    content.filter((c) => columns.has(c)),
    content,
    'the first send reads the content to parse it',
  );
  columns.clear();
  t.deepEqual(await templates.renderForSend(ph.owner.projectId, 'receipt', { who: 'Z' }), first);
  t.true(columns.has('version_id'), 'the second send reads which version is published');
  t.deepEqual(
    content.filter((c) => columns.has(c)),
    [],
    'and nothing of its content',
  );
});

test('a template deleted between reading its published version and reading its content is refused as absent', async (t) => {
  const ph = await startPosthorn(t);
  const store = createTemplateStore(ph.server.kernel.db);
  const deleting: TemplateStore = {
    ...store,
    async findPublished(projectId, ref) {
      const row = await store.findPublished(projectId, ref);
      if (row) await store.remove(projectId, row.id);
      return row;
    },
  };
  const created = await serviceOn(ph, store).create(ph.owner.projectId, template('Hi {{who}}'));
  const templates = serviceOn(ph, deleting);
  await templates.publish(ph.owner.projectId, created.id);
  const error = await t.throwsAsync(templates.renderForSend(ph.owner.projectId, 'receipt', { who: 'Z' }));
  t.like(error, { status: 400, message: 'template: no template "receipt" exists in this project.' });
});
