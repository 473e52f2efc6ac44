import test from 'ava';
import { audienceWith, sendBroadcast, startBroadcastEnv, until } from './env.js';

const FROM = 'Acme News <news@acme.test>';

test('bad broadcast input is a clear 400, 403 or 404 and writes nothing', async (t) => {
  t.timeout(240_000);
  const env = await startBroadcastEnv(t);
  const { ph } = env;
  const audience = await audienceWith(env, [{ email: 'ann@example.net' }]);
  const create = (body: Record<string, unknown>) =>
    ph.request('POST', '/v1/broadcasts', {
      body: { audience_id: audience, from: FROM, subject: 'S', html: '<p>x</p>', ...body },
    });

  const unverified = await create({ from: 'news@elsewhere.test' });
  t.is(unverified.status, 403);
  t.regex(unverified.body.error, /elsewhere\.test is not a verified domain/);
  const noAudience = await create({ audience_id: 'aud_missing' });
  t.is(noAudience.status, 404);
  t.regex(noAudience.body.error, /Audience aud_missing was not found/);
  const placeholder = await create({ html: '<p>Hi {{nickname}}</p>' });
  t.is(placeholder.status, 400);
  t.is(placeholder.body.details[0].path, 'html');
  t.regex(placeholder.body.error, /\{\{nickname\}\}, which no contact has/);
  const noContent = await ph.request('POST', '/v1/broadcasts', {
    body: { audience_id: audience, from: FROM },
  });
  t.is(noContent.status, 400);
  t.deepEqual(noContent.body.details.map((d: { path: string }) => d.path).sort(), ['html', 'subject']);
  const both = await create({ template: 'welcome' });
  t.is(both.status, 400);
  t.regex(both.body.error, /template: cannot be combined/);
  const unknownTemplate = await ph.request('POST', '/v1/broadcasts', {
    body: { audience_id: audience, from: FROM, template: 'nope' },
  });
  t.is(unknownTemplate.status, 400);
  t.regex(unknownTemplate.body.error, /template: no template "nope"/);
  const extra = await create({ send_at: '2030-01-01T00:00:00Z' });
  t.is(extra.status, 400, 'scheduling is its own call');
  t.deepEqual(
    (await ph.request('GET', '/v1/broadcasts')).body.data,
    [],
    'no refused request wrote a broadcast',
  );
});

test('a draft is scheduled up to 30 days ahead, changed only while a draft, and cancelled once; a sent broadcast cannot be cancelled', async (t) => {
  t.timeout(240_000);
  const env = await startBroadcastEnv(t);
  const { ph } = env;
  const audience = await audienceWith(env, [{ email: 'ann@example.net' }]);
  const draft = await ph.request('POST', '/v1/broadcasts', {
    body: { audience_id: audience, from: FROM, subject: 'Later', text: 'Hi {{first_name}}' },
  });
  t.is(draft.status, 201, draft.text);
  t.regex(draft.body.id, /^bc_/);
  t.is(draft.body.status, 'draft');
  t.is(draft.body.name, 'Later', 'the name defaults to the subject');
  const id = draft.body.id as string;

  const renamed = await ph.request('PATCH', `/v1/broadcasts/${id}`, {
    body: { name: 'April', html: '<p>Hi</p>' },
  });
  t.is(renamed.status, 200, renamed.text);
  t.is(renamed.body.name, 'April');
  t.is(renamed.body.text, 'Hi {{first_name}}');

  const tooFar = await ph.request('POST', `/v1/broadcasts/${id}/schedule`, {
    body: { send_at: new Date(Date.now() + 31 * 86_400_000).toISOString() },
  });
  t.is(tooFar.status, 400);
  t.regex(tooFar.body.error, /send_at: must be at most 30 days ahead/);
  const past = await ph.request('POST', `/v1/broadcasts/${id}/schedule`, {
    body: { send_at: '2020-01-01T00:00:00Z' },
  });
  t.is(past.status, 400);
  t.is((await ph.request('GET', `/v1/broadcasts/${id}`)).body.status, 'draft', 'still a draft');

  const at = new Date(Date.now() + 86_400_000).toISOString();
  const scheduled = await ph.request('POST', `/v1/broadcasts/${id}/schedule`, { body: { send_at: at } });
  t.is(scheduled.status, 202, scheduled.text);
  t.is(scheduled.body.status, 'scheduled');
  t.is(
    scheduled.body.send_at,
    at.replace(/\.\d+Z$/, (m) => m),
  );
  t.is((await ph.request('PATCH', `/v1/broadcasts/${id}`, { body: { name: 'x' } })).status, 409);
  const deleteAudience = await ph.request('DELETE', `/v1/audiences/${audience}`);
  t.is(deleteAudience.status, 409, 'an audience a broadcast is scheduled for stays');
  const listed = await ph.request('GET', '/v1/broadcasts?status=scheduled');
  t.deepEqual(
    listed.body.data.map((b: { id: string }) => b.id),
    [id],
  );

  t.is((await ph.request('POST', `/v1/broadcasts/${id}/cancel`)).status, 204);
  const again = await ph.request('POST', `/v1/broadcasts/${id}/cancel`);
  t.is(again.status, 409);
  t.regex(again.body.error, /already cancelled/);
  t.is((await ph.request('POST', `/v1/broadcasts/${id}/schedule`)).status, 409);

  const sent = await sendBroadcast(env, { audience_id: audience });
  await until('the broadcast to be sent', async () => {
    const res = await ph.request('GET', `/v1/broadcasts/${sent}`);
    return res.body.status === 'sent' ? true : undefined;
  });
  const late = await ph.request('POST', `/v1/broadcasts/${sent}/cancel`);
  t.is(late.status, 409);
  t.regex(late.body.error, /finished sending/);

  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  t.is(
    (await ph.request('GET', `/v1/broadcasts/${sent}`, { key: testKey })).status,
    404,
    'test keys see test broadcasts only',
  );
});

test('a broadcast from a published template fills its variables from each contact', async (t) => {
  t.timeout(240_000);
  const env = await startBroadcastEnv(t);
  const { ph } = env;
  const audience = await audienceWith(env, [{ email: 'ann@example.net', first_name: 'Ann' }]);
  const template = await ph.request('POST', '/v1/templates', {
    body: {
      slug: 'news',
      name: 'News',
      subject: 'News for {{first_name}}',
      html_body: '<p>Hello {{first_name}}. <a href="{{unsubscribe_url}}">Leave</a></p>',
      variables: ['first_name', 'unsubscribe_url'],
    },
  });
  t.is(template.status, 201, template.text);
  t.is((await ph.request('POST', `/v1/templates/${template.body.id}/publish`)).status, 200);
  const odd = await ph.request('POST', '/v1/templates', {
    body: { slug: 'odd', name: 'Odd', subject: 'Code {{code}}', text_body: 'x', variables: ['code'] },
  });
  await ph.request('POST', `/v1/templates/${odd.body.id}/publish`);
  const refused = await ph.request('POST', '/v1/broadcasts', {
    body: { audience_id: audience, from: FROM, template: 'odd' },
  });
  t.is(refused.status, 400);
  t.regex(refused.body.error, /\{\{code\}\}, which no contact has/);

  await sendBroadcast(env, { audience_id: audience, template: 'news', subject: undefined, html: undefined });
  const [message] = await env.peer.waitFor(1, 30_000);
  const raw = message?.data.toString('utf8') ?? '';
  t.regex(raw, /Subject: News for Ann/);
  t.regex(
    raw,
    /Hello Ann\. <a href=3D"https:\/\/localhost:\d+\/v1\/unsubscribe\/m|Hello Ann\. <a href="https:\/\/localhost:\d+\/v1\/unsubscribe\/m/,
  );
  t.false(
    raw.includes('You receive this because you subscribed'),
    'no footer when the template places the link',
  );
});
