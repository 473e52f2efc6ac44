import test from 'ava';
import { simpleParser } from 'mailparser';
import { rows } from '../delivery/env.js';
import { dkimpyVerify } from '../helpers/dkimpy-verify.js';
import { audienceWith, headersOf, sendBroadcast, startBroadcastEnv, until } from './env.js';

test('a broadcast reaches each subscribed contact as a marketing message with signed one-click unsubscribe headers, and the one-click POST unsubscribes', async (t) => {
  t.timeout(240_000);
  const env = await startBroadcastEnv(t);
  const { ph, peer, front } = env;
  const audience = await audienceWith(env, [
    { email: 'ann@example.net', first_name: 'Ann <b>&', metadata: { plan: 'pro' } },
    { email: 'bo@example.net' },
    { email: 'gone@example.net' },
    { email: 'blocked@example.net' },
  ]);
  await ph.server.services.audiences.unsubscribe(
    (await ph.request('GET', `/v1/audiences/${audience}/contacts/gone@example.net`)).body.id,
    { source: 'api' },
  );
  t.is(
    (
      await ph.request('POST', '/v1/suppressions', {
        body: { email: 'blocked@example.net', reason: 'hard_bounce' },
      })
    ).status,
    201,
  );

  const id = await sendBroadcast(env, {
    audience_id: audience,
    name: 'March news',
    subject: 'Hello {{first_name}}',
    html: '<html><body><p>Hi {{first_name}}, your plan is {{metadata.plan}}.</p></body></html>',
    text: 'Hi {{first_name}}',
    reply_to: 'support@acme.test',
    tags: { campaign: 'march' },
  });
  const received = await peer.waitFor(2, 30_000);
  const byRcpt = new Map(received.map((m) => [m.rcptTo[0], m]));
  t.deepEqual([...byRcpt.keys()].sort(), ['ann@example.net', 'bo@example.net']);
  const ann = byRcpt.get('ann@example.net');
  if (!ann) throw new Error('no message for ann');

  const headers = headersOf(ann.data);
  const unsubscribe = headers.get('list-unsubscribe') ?? '';
  const [, url, mailto] = /^<(https:\/\/[^>]+)>, <(mailto:[^>]+)>$/.exec(unsubscribe) ?? [];
  t.truthy(url, unsubscribe);
  t.true(url?.startsWith(`${front.url}/v1/unsubscribe/m`), url);
  t.regex(mailto ?? '', /^mailto:u\+m[0-9a-z]{26}-[0-9a-z]{10}@bounces\.acme\.test\?subject=unsubscribe$/);
  t.is(headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
  const signed = /\bh=([^;]*)/
    .exec(headers.get('dkim-signature') ?? '')?.[1]
    ?.replace(/\s+/g, '')
    .toLowerCase()
    .split(':');
  t.true(signed?.includes('list-unsubscribe'), `h= covers List-Unsubscribe: ${signed}`);
  t.true(signed?.includes('list-unsubscribe-post'), `h= covers List-Unsubscribe-Post: ${signed}`);
  const verdict = await dkimpyVerify(ann.data, { host: env.dns.host, port: env.dns.port });
  t.true(verdict.ok, verdict.output);

  const parsed = await simpleParser(ann.data);
  t.is(parsed.subject, 'Hello Ann <b>&');
  t.is(parsed.to && 'text' in parsed.to ? parsed.to.value[0]?.address : undefined, 'ann@example.net');
  t.true(String(parsed.html).includes('Hi Ann &lt;b&gt;&amp;, your plan is pro.'), String(parsed.html));
  t.true(String(parsed.html).includes(`<a href="${url}">Unsubscribe</a>`), 'a visible unsubscribe link');
  t.true(String(parsed.text).includes(`Unsubscribe: ${url}`), String(parsed.text));

  const messageId = /^<(msg_[0-9A-Z]+)@acme\.test>$/.exec(headers.get('message-id') ?? '')?.[1];
  const [message] = rows<{ traffic: string; api_key_id: string | null }>(
    ph,
    'select traffic, api_key_id from messages where id = ?',
    messageId,
  );
  t.deepEqual(
    message,
    { traffic: 'marketing', api_key_id: null },
    'an ordinary message of channel marketing',
  );
  t.is((await ph.request('GET', `/v1/emails/${messageId}`)).status, 200, 'in the message history');
  // The dashboard's message detail shows the bodies the contact received (written from the
  // broadcast's content, which is stored once).
  const users = ph.server.services.accounts.users;
  const owner = await users.findByEmail('owner@example.test');
  if (!owner) throw new Error('no owner');
  await users.setPassword(owner, 'a long enough password');
  const login = await ph.request('POST', '/v1/auth/login-password', {
    body: { email: 'owner@example.test', password: 'a long enough password' },
    key: null,
  });
  const detail = await ph.request('GET', `/v1/dashboard/emails/${messageId}`, { key: login.body.token });
  t.is(detail.status, 200, detail.text);
  t.true(String(detail.body.html).includes('Hi Ann &lt;b&gt;&amp;, your plan is pro.'), detail.text);
  t.true(String(detail.body.text).includes(`Unsubscribe: ${url}`), detail.text);
  const [job] = rows<{ traffic: string; lane: string }>(
    ph,
    'select traffic, lane from delivery_jobs where message_id = ?',
    messageId,
  );
  t.is(job?.traffic, 'marketing', 'delivered on the marketing lane set');
  const [sent] = rows<{ data: string }>(
    ph,
    "select data from events where type = 'email.sent' and message_id = ?",
    messageId,
  );
  t.is(JSON.parse(sent?.data ?? '{}').broadcast_id, id);

  // A mailbox provider makes the one-click POST (RFC 8058 §3.2) to the https URL.
  const oneClick = await front.request('POST', url as string, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
  t.is(oneClick.status, 200, oneClick.text);
  const contact = await ph.request('GET', `/v1/audiences/${audience}/contacts/ann@example.net`);
  t.is(contact.body.status, 'unsubscribed');
  const last = contact.body.history.at(-1);
  t.is(last.kind, 'unsubscribed');
  t.is(last.source, 'one_click');
  t.is(last.broadcast_id, id);

  const progress = await until('the broadcast to be sent and delivered', async () => {
    const res = await ph.request('GET', `/v1/broadcasts/${id}`);
    return res.body.status === 'sent' && res.body.progress.delivered === 2 ? res.body : undefined;
  });
  t.deepEqual(progress.progress, {
    recipients: 2,
    sent: 2,
    delivered: 2,
    bounced: 0,
    complained: 0,
    failed: 0,
    unsubscribed: 1,
    suppressed: 1,
    prepared: 0,
  });
  const types = rows<{ type: string }>(
    ph,
    "select type from events where type in ('broadcast.sent', 'contact.unsubscribed') order by id",
  ).map((r) => r.type);
  t.true(types.includes('broadcast.sent'));

  // An unsubscribed contact receives no later broadcast.
  await sendBroadcast(env, { audience_id: audience, subject: 'Later' });
  const later = await peer.waitFor(3, 30_000);
  t.deepEqual(
    later.slice(2).map((m) => m.rcptTo[0]),
    ['bo@example.net'],
  );
});

test('the unsubscribe page unsubscribes, offers to subscribe again, and an altered token is 404', async (t) => {
  t.timeout(240_000);
  const env = await startBroadcastEnv(t);
  const audience = await audienceWith(env, [{ email: 'cy@example.net' }]);
  await sendBroadcast(env, { audience_id: audience });
  const [message] = await env.peer.waitFor(1, 30_000);
  const url =
    /<(https:[^>]+)>/.exec(headersOf(message?.data ?? Buffer.alloc(0)).get('list-unsubscribe') ?? '')?.[1] ??
    '';
  const page = await env.front.request('GET', url);
  t.is(page.status, 200);
  t.regex(String(page.headers['content-type']), /text\/html/);
  t.true(page.text.includes('cy@example.net'));
  t.true(page.text.includes('Subscribe again'));
  t.is(page.headers['referrer-policy'], 'no-referrer');
  const path = `/v1/audiences/${audience}/contacts/cy@example.net`;
  t.is((await env.ph.request('GET', path)).body.status, 'unsubscribed');

  const again = await env.front.request('POST', `${url}/resubscribe`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  t.is(again.status, 200, again.text);
  t.true(again.text.includes('subscribed again'));
  const contact = (await env.ph.request('GET', path)).body;
  t.is(contact.status, 'subscribed');
  t.deepEqual(
    contact.history.map((h: { kind: string; source: string }) => [h.kind, h.source]),
    [
      ['subscribed', 'signup form'],
      ['unsubscribed', 'link'],
      ['subscribed', 'resubscribed from the unsubscribe page'],
    ],
  );

  const altered = url.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'));
  const bad = await env.front.request('GET', altered);
  t.is(bad.status, 404);
  t.true(bad.text.includes('not valid'));
  const badPost = await env.front.request('POST', altered, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'List-Unsubscribe=One-Click',
  });
  t.is(badPost.status, 404);
  const notOneClick = await env.front.request('POST', url, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'x=1',
  });
  t.is(notOneClick.status, 400);
  t.is(
    (await env.ph.request('GET', path)).body.status,
    'subscribed',
    'nothing changed by the refused requests',
  );
});
