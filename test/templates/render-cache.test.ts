/**
 * A send renders a template version from its cached parse: each version renders its own content,
 * a deleted template is refused whatever the cache holds, and the cache keeps to its bounds.
 */
import test from 'ava';
import { createTemplateService } from '../../src/templates/service.js';
import { createTemplateStore } from '../../src/templates/store.js';
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
  const [message] = rows<{ subject: string; html: string; text: string; template_version: number }>(
    ph,
    'select m.subject, b.html, b.text, m.template_version from messages m join message_bodies b on b.message_id = m.id where m.id = ?',
    res.body.id,
  );
  return message;
}

const rendered = (version: number, subject: string) => ({
  subject,
  html: `<p>${subject}</p><a href=A&#32;b>x</a>`,
  text: subject,
  template_version: version,
});

test('each version of a template renders its own content, before and after a rollback', async (t) => {
  const ph = await startPosthorn(t);
  verifiedDomain(ph);
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
  verifiedDomain(ph);
  const first = await ph.request('POST', '/v1/templates', { body: template('Old {{who}}') });
  await ph.request('POST', `/v1/templates/${first.body.id}/publish`);
  t.deepEqual(await send(ph, 'receipt'), rendered(1, 'Old A b'));
  t.is((await ph.request('DELETE', `/v1/templates/${first.body.id}`)).status, 204);

  t.is(await send(ph, 'receipt'), '400 template: no template "receipt" exists in this project.');
  t.is(await send(ph, first.body.id), `400 template: no template "${first.body.id}" exists in this project.`);
  const second = await ph.request('POST', '/v1/templates', { body: template('New {{who}}') });
  await ph.request('POST', `/v1/templates/${second.body.id}/publish`);
  t.deepEqual(await send(ph, 'receipt'), rendered(1, 'New A b'));
  t.is(rows(ph, 'select id from messages').length, 2);
});

test('the service keeps at most its bound of parsed versions and renders every template correctly', async (t) => {
  const ph = await startPosthorn(t);
  const store = createTemplateStore(ph.server.kernel.db);
  const unused = async () => {
    throw new Error('the render needs no domain data');
  };
  const templates = createTemplateService(
    store,
    { domainSummaries: unused, trackingDns: unused },
    { maxBodyBytes: ph.config.limits.max_body_bytes, parsedCache: { maxEntries: 2, maxBytes: 1e9 } },
  );
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
