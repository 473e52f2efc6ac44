import { query } from '../helpers/sql.js';
import test from 'ava';
import { startPosthorn } from '../helpers/server.js';

const consent = { consent_source: 'signup form', consent_at: '2026-01-02T03:04:05Z' };

test('an audience is created, listed, read with its counts, renamed and deleted', async (t) => {
  const ph = await startPosthorn(t);
  const created = await ph.request('POST', '/v1/audiences', {
    body: { name: 'Newsletter', description: 'Monthly' },
  });
  t.is(created.status, 201, created.text);
  t.regex(created.body.id, /^aud_/);
  t.deepEqual(created.body.contacts, { subscribed: 0, unsubscribed: 0 });
  const list = await ph.request('GET', '/v1/audiences');
  t.deepEqual(
    list.body.data.map((a: { id: string }) => a.id),
    [created.body.id],
  );
  t.false(list.body.has_more);
  const renamed = await ph.request('PATCH', `/v1/audiences/${created.body.id}`, { body: { name: 'News' } });
  t.is(renamed.status, 200, renamed.text);
  t.is(renamed.body.name, 'News');
  t.is(renamed.body.description, 'Monthly');
  t.is((await ph.request('DELETE', `/v1/audiences/${created.body.id}`)).status, 204);
  t.is((await ph.request('GET', `/v1/audiences/${created.body.id}`)).status, 404);
});

test('a contact needs recorded consent, a past consent time and a valid address; nothing is written otherwise', async (t) => {
  const ph = await startPosthorn(t);
  const audience = (await ph.request('POST', '/v1/audiences', { body: { name: 'News' } })).body.id;
  const path = `/v1/audiences/${audience}/contacts`;
  const noConsent = await ph.request('POST', path, { body: { email: 'ann@example.com' } });
  t.is(noConsent.status, 400);
  t.deepEqual(noConsent.body.details.map((d: { path: string }) => d.path).sort(), [
    'consent_at',
    'consent_source',
  ]);
  const future = await ph.request('POST', path, {
    body: { email: 'ann@example.com', consent_source: 'form', consent_at: '2099-01-01T00:00:00Z' },
  });
  t.is(future.status, 400);
  t.regex(future.body.error, /consent_at: must not be in the future/);
  const malformed = await ph.request('POST', path, { body: { email: 'ann@', ...consent } });
  t.is(malformed.status, 400);
  t.regex(malformed.body.error, /email: must be a valid email address/);
  const unknownField = await ph.request('POST', path, {
    body: { email: 'ann@example.com', ...consent, age: 3 },
  });
  t.is(unknownField.status, 400);
  const unknownAudience = await ph.request('POST', '/v1/audiences/aud_nope/contacts', {
    body: { email: 'ann@example.com', ...consent },
  });
  t.is(unknownAudience.status, 404);
  t.regex(unknownAudience.body.error, /Audience aud_nope was not found/);
  const listed = await ph.request('GET', path);
  t.deepEqual(listed.body.data, [], 'no refused request wrote a contact');
});

test('adding a contact keeps its consent; resubscribing after an unsubscription keeps both in the history', async (t) => {
  const ph = await startPosthorn(t);
  const audience = (await ph.request('POST', '/v1/audiences', { body: { name: 'News' } })).body.id;
  const path = `/v1/audiences/${audience}/contacts`;
  const added = await ph.request('POST', path, {
    body: { email: 'Ann@Example.COM', ...consent, first_name: 'Ann', metadata: { plan: 'pro' } },
  });
  t.is(added.status, 201, added.text);
  t.regex(added.body.id, /^con_/);
  t.is(added.body.email, 'ann@example.com');
  t.is(added.body.status, 'subscribed');
  t.is(added.body.consent_source, 'signup form');
  t.is(added.body.consent_at, '2026-01-02T03:04:05.000Z');
  t.deepEqual(added.body.metadata, { plan: 'pro' });

  await ph.server.services.audiences.unsubscribe(added.body.id, { source: 'api' });
  const left = await ph.request('GET', `${path}/${added.body.id}`);
  t.is(left.body.status, 'unsubscribed');
  t.truthy(left.body.unsubscribed_at);

  const again = await ph.request('POST', path, {
    body: {
      email: 'ann@example.com',
      consent_source: 'preference center',
      consent_at: '2026-03-01T00:00:00Z',
    },
  });
  t.is(again.status, 201);
  t.is(again.body.id, added.body.id, 'the same contact, subscribed again');
  t.is(again.body.status, 'subscribed');
  t.is(again.body.first_name, 'Ann', 'names not given are kept');
  const byEmail = await ph.request('GET', `${path}/ann@example.com`);
  t.deepEqual(
    byEmail.body.history.map((h: { kind: string; source: string }) => [h.kind, h.source]),
    [
      ['subscribed', 'signup form'],
      ['unsubscribed', 'api'],
      ['subscribed', 'preference center'],
    ],
  );
  const types = (
    await query<{ type: string }>(
      ph.server.kernel.store,
      "select type from events where type like 'contact.%' order by id",
    )
  ).map((row) => row.type);
  t.deepEqual(types, ['contact.created', 'contact.unsubscribed', 'contact.updated']);

  const updated = await ph.request('PATCH', `${path}/${added.body.id}`, {
    body: { last_name: 'Lee', metadata: {} },
  });
  t.is(updated.status, 200, updated.text);
  t.is(updated.body.last_name, 'Lee');
  t.deepEqual(updated.body.metadata, {});
  const subscribedOnly = await ph.request('GET', `${path}?status=unsubscribed`);
  t.deepEqual(subscribedOnly.body.data, []);
  t.is((await ph.request('DELETE', `${path}/${added.body.id}`)).status, 204);
  t.is((await ph.request('GET', `${path}/${added.body.id}`)).status, 404);
});

test('an import of CSV reports each refused row and why, and never resubscribes someone who left', async (t) => {
  const ph = await startPosthorn(t);
  const audience = (await ph.request('POST', '/v1/audiences', { body: { name: 'News' } })).body.id;
  const path = `/v1/audiences/${audience}/contacts`;
  const left = await ph.request('POST', path, { body: { email: 'left@example.com', ...consent } });
  await ph.server.services.audiences.unsubscribe(left.body.id, { source: 'api' });
  const csv = [
    'email,first_name,consent_source,consent_at,plan',
    'a@example.com,Ann,import,2026-01-01T00:00:00Z,pro',
    'b@example.com,"Bo, Jr.",import,2026-01-01T00:00:00Z,',
    'c@example.com,Cy,,2026-01-01T00:00:00Z,free',
    'not-an-address,Di,import,2026-01-01T00:00:00Z,free',
    'e@example.com,Ed,import,2099-01-01T00:00:00Z,free',
    'left@example.com,Lo,import,2026-01-01T00:00:00Z,free',
  ].join('\r\n');
  const res = await ph.request('POST', `${path}/import`, {
    rawBody: csv,
    headers: { 'content-type': 'text/csv' },
  });
  t.is(res.status, 200, res.text);
  t.is(res.body.rows, 6);
  t.is(res.body.created, 2);
  t.is(res.body.refused, 4);
  t.deepEqual(
    res.body.errors.map((e: { line: number; email: string | null }) => [e.line, e.email]),
    [
      [4, 'c@example.com'],
      [5, 'not-an-address'],
      [6, 'e@example.com'],
      [7, 'left@example.com'],
    ],
  );
  t.regex(res.body.errors[0].error, /consent_source/);
  t.regex(res.body.errors[2].error, /future/);
  t.regex(res.body.errors[3].error, /unsubscribed/);
  const ann = await ph.request('GET', `${path}/a@example.com`);
  t.deepEqual(ann.body.metadata, { plan: 'pro' });
  t.is((await ph.request('GET', `${path}/b@example.com`)).body.first_name, 'Bo, Jr.');
  t.is((await ph.request('GET', `${path}/left@example.com`)).body.status, 'unsubscribed');
});

test('an import of 100,000 JSON lines is streamed and every row lands', async (t) => {
  // About 10 s on a quiet host; far more when the host is shared by many test runs.
  t.timeout(600_000);
  const ph = await startPosthorn(t);
  const audience = (await ph.request('POST', '/v1/audiences', { body: { name: 'Big' } })).body.id;
  const rows = 100_000;
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    lines.push(JSON.stringify({ email: `user${i}@example.com`, ...consent, metadata: { n: String(i) } }));
  }
  const body = `${lines.join('\n')}\n`;
  const started = Date.now();
  const res = await ph.request('POST', `/v1/audiences/${audience}/contacts/import`, {
    rawBody: body,
    headers: { 'content-type': 'application/x-ndjson' },
  });
  t.is(res.status, 200, res.text.slice(0, 500));
  t.is(res.body.created, rows);
  t.is(res.body.refused, 0);
  t.log(`imported ${rows} contacts (${(body.length / 1e6).toFixed(1)} MB) in ${Date.now() - started} ms`);
  const counts = (await ph.request('GET', `/v1/audiences/${audience}`)).body.contacts;
  t.deepEqual(counts, { subscribed: rows, unsubscribed: 0 });
});

test('an import in another format is refused with 415', async (t) => {
  const ph = await startPosthorn(t);
  const audience = (await ph.request('POST', '/v1/audiences', { body: { name: 'News' } })).body.id;
  const res = await ph.request('POST', `/v1/audiences/${audience}/contacts/import`, {
    rawBody: '<xml/>',
    headers: { 'content-type': 'application/xml' },
  });
  t.is(res.status, 415);
});
