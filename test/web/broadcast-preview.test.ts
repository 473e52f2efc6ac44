/**
 * A broadcast's HTML for the dashboard's sandboxed frame: the HTML as written, under the preview's
 * policy (no script, nothing remote, framed by the dashboard only), for a session of the project.
 */
import test from 'ava';
import { codeIn, receivedMail, SYSTEM_FROM } from '../accounts/env.js';
import { mx, startDeliveryEnv } from '../delivery/env.js';
import { newId } from '../../src/platform/ids.js';
import { PREVIEW_CSP } from '../../src/web/message-routes.js';

test("a session reads a draft's HTML under the sandbox policy, in the project the page selected; a draft without HTML, an unknown ID, no session or an API key gets none (other projects' IDs: test/reliability/cross-tenant)", async (t) => {
  const env = await startDeliveryEnv(t, { config: { system_mail: { from: SYSTEM_FROM } } });
  mx(env.dns, 'example.test', [{ host: 'mx.example.test', ip: '127.0.0.1' }]);
  const audience = await env.ph.request('POST', '/v1/audiences', { body: { name: 'Newsletter' } });
  t.is(audience.status, 201, audience.text);
  const html = '<h1 style="color: #c00">Hello {{first_name}}</h1><script>alert(1)</script>';
  const draft = async (content: Record<string, string>) => {
    const res = await env.ph.request('POST', '/v1/broadcasts', {
      body: { audience_id: audience.body.id, from: 'Acme <news@acme.test>', subject: 'News', ...content },
    });
    t.is(res.status, 201, res.text);
    return res.body.id as string;
  };
  const withHtml = await draft({ html });
  const textOnly = await draft({ text: 'Hello' });

  await env.ph.request('POST', '/v1/auth/request-code', { key: null, body: { email: 'owner@example.test' } });
  const code = codeIn(await receivedMail(env, 1));
  const signedIn = await env.ph.request('POST', '/v1/auth/verify-code', {
    key: null,
    body: { email: 'owner@example.test', code },
  });
  t.is(signedIn.status, 200, signedIn.text);
  const session = signedIn.body.token as string;

  const preview = await env.ph.request('GET', `/v1/dashboard/broadcasts/${withHtml}/preview`, {
    key: session,
  });
  t.is(preview.status, 200, preview.text);
  t.is(preview.text, html, 'the HTML as written, tags unexpanded');
  t.regex(preview.headers.get('content-type') ?? '', /^text\/html/);
  t.is(preview.headers.get('content-security-policy'), PREVIEW_CSP);
  t.is(preview.headers.get('x-content-type-options'), 'nosniff');
  t.is(preview.headers.get('cache-control'), 'private, no-store');

  // A frame cannot send X-Posthorn-Project-ID: `?project=` selects the page's project, of the organization only.
  const now = Date.now();
  const staging = newId('prj', now);
  await env.ph.server.kernel.db
    .insertInto('projects')
    .values({
      id: staging,
      organization_id: env.ph.owner.organizationId,
      name: 'Staging',
      status: 'sandbox',
      created_at: now,
      updated_at: now,
    })
    .execute();
  const path = `/v1/dashboard/broadcasts/${withHtml}/preview`;
  const inDefault = await env.ph.request('GET', `${path}?project=${signedIn.body.session.project_id}`, {
    key: session,
  });
  t.is(inDefault.text, html);
  const inStaging = await env.ph.request('GET', `${path}?project=${staging}`, { key: session });
  t.is(inStaging.status, 404, "not the selected project's broadcast");
  const elsewhere = await env.ph.request('GET', `${path}?project=prj_unknown`, { key: session });
  t.is(elsewhere.status, 404);
  t.regex(elsewhere.body.error, /Project prj_unknown/);

  const none = await env.ph.request('GET', `/v1/dashboard/broadcasts/${textOnly}/preview`, { key: session });
  t.is(none.status, 404);
  t.regex(none.body.error, /HTML of broadcast/);
  const unknown = await env.ph.request('GET', '/v1/dashboard/broadcasts/bc_unknown/preview', {
    key: session,
  });
  t.is(unknown.status, 404);
  const anonymous = await env.ph.request('GET', `/v1/dashboard/broadcasts/${withHtml}/preview`, {
    key: null,
  });
  t.is(anonymous.status, 401);
  const apiKey = await env.ph.request('GET', `/v1/dashboard/broadcasts/${withHtml}/preview`);
  t.is(apiKey.status, 401, 'a dashboard route takes a session, not an API key');
});
