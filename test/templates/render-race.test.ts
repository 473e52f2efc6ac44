import test from 'ava';
import { createTemplateService } from '../../src/templates/service.js';
import { createTemplateStore, type TemplateStore } from '../../src/templates/store.js';
import { startPosthorn } from '../helpers/server.js';

/**
 * The store, with the template deleted (as a concurrent DELETE would) right after the first
 * query a render makes. Rendering used to read the template and then its published version in
 * two queries: a delete between them was a 500.
 */
function deletingAfterFirstQuery(store: TemplateStore, remove: () => Promise<unknown>): TemplateStore {
  let first = true;
  return new Proxy(store, {
    get(target, property, receiver) {
      const member = Reflect.get(target, property, receiver);
      if (typeof member !== 'function') return member;
      return async (...args: unknown[]) => {
        const result = await member.apply(target, args);
        if (first) {
          first = false;
          await remove();
        }
        return result;
      };
    },
  });
}

test('a template deleted while a send renders it never gives a 500', async (t) => {
  const ph = await startPosthorn(t);
  const created = await ph.request('POST', '/v1/templates', {
    body: { name: 'T', subject: 'Hi {{name}}', text_body: 'x', variables: ['name'] },
  });
  await ph.request('POST', `/v1/templates/${created.body.id}/publish`);
  const store = createTemplateStore(ph.server.kernel.db);
  const racing = deletingAfterFirstQuery(store, () => store.remove(ph.owner.projectId, created.body.id));
  const unused = async () => {
    throw new Error('the render needs no domain data');
  };
  const templates = createTemplateService(
    racing,
    { domainSummaries: unused, trackingDns: unused },
    { maxBodyBytes: ph.config.limits.max_body_bytes },
  );
  const outcome = await templates.renderForSend(ph.owner.projectId, created.body.id, { name: 'Ann' }).then(
    (rendered) => rendered.subject,
    (error: { status?: number; message: string }) => `${error.status}: ${error.message}`,
  );
  t.true(outcome === 'Hi Ann' || outcome.startsWith('400: template:'), outcome);
  t.is((await ph.request('GET', `/v1/templates/${created.body.id}`)).status, 404, 'the delete went through');
});
