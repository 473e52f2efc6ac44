/**
 * Threads and replies: received mail joins the thread of whatever it answers (a message Posthorn
 * sent, or one it received), a reply sent through the API carries In-Reply-To and References
 * (RFC 5322 §3.6.4) and joins the thread, and a repeated Idempotency-Key returns the first reply.
 */
import test from 'ava';
import { createRoute, DOMAIN, type InboundEnv, startInboundEnv } from '../env.js';
import { query } from '../../helpers/sql.js';

async function received(env: InboundEnv, subject: string) {
  const list = await env.ph.request('GET', '/v1/inbound/emails?limit=100');
  const found = list.body.data.find((m: { subject: string }) => m.subject === subject);
  if (!found) throw new Error(`no received email "${subject}"`);
  return (await env.ph.request('GET', `/v1/inbound/emails/${found.id}`)).body;
}

async function storedMessage(env: InboundEnv, id: string) {
  const { store } = env.ph.server.kernel;
  const [row] = (await query<{ subject: string; headers: string; text: string; from_header: string }>(
    store,
    `select m.subject, m.headers, b.text, m.from_header
     from messages m left join message_bodies b on b.message_id = m.id where m.id = ?`,
    id,
  )) as [{ subject: string; headers: string; text: string; from_header: string }];
  const to = await query<{ email: string }>(
    store,
    'select email from message_recipients where message_id = ?',
    id,
  );
  return { ...row, headers: JSON.parse(row.headers) as Record<string, string>, to: to.map((r) => r.email) };
}

test('an answer to a message Posthorn sent starts a thread with it; later answers join by References', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'hello');
  const sent = await env.ph.request('POST', '/v1/emails', {
    body: {
      from: `Acme <hello@${DOMAIN}>`,
      to: ['bob@example.net'],
      subject: 'Welcome to Acme',
      text: 'Hi Bob!',
    },
  });
  t.is(sent.status, 202);
  const outboundId = `<${sent.body.id}@${DOMAIN}>`;

  await env.send({
    from: 'Bob <bob@example.net>',
    to: `hello@${DOMAIN}`,
    subject: 'Re: Welcome to Acme',
    text: 'Thanks!',
    messageId: '<bob-1@example.net>',
    inReplyTo: outboundId,
    references: outboundId,
  });
  await env.settled();
  const first = await received(env, 'Re: Welcome to Acme');

  await env.send({
    from: 'Bob <bob@example.net>',
    to: `hello@${DOMAIN}`,
    subject: 'Re: Re: Welcome to Acme',
    text: 'One more thing.',
    messageId: '<bob-2@example.net>',
    inReplyTo: '<bob-1@example.net>',
    references: [outboundId, '<bob-1@example.net>'],
  });
  await env.send({
    from: 'Mallory <mallory@example.org>',
    to: `hello@${DOMAIN}`,
    subject: 'Re: Welcome to Acme',
    text: 'Same subject, no references: a new conversation.',
  });
  await env.settled();
  const second = await received(env, 'Re: Re: Welcome to Acme');
  t.is(second.thread_id, first.thread_id);
  const list = await env.ph.request('GET', '/v1/inbound/emails?limit=100');
  const stranger = list.body.data.find((m: { from: string }) => m.from.includes('mallory'));
  t.not(stranger.thread_id, first.thread_id);

  const thread = await env.ph.request('GET', `/v1/inbound/threads/${first.thread_id}`);
  t.is(thread.status, 200);
  t.is(thread.body.subject, 'Welcome to Acme');
  t.deepEqual(
    thread.body.messages.map((m: { direction: string; id: string }) => [m.direction, m.id]),
    [
      ['outbound', sent.body.id],
      ['inbound', first.id],
      ['inbound', second.id],
    ],
  );
  t.like(thread.body.messages[0], {
    from: `Acme <hello@${DOMAIN}>`,
    to: ['bob@example.net'],
    status: 'queued',
  });
  t.is((await env.ph.request('GET', '/v1/inbound/threads/thr_NOPE')).status, 404);
  const other = await env.ph.bootstrap();
  t.is(
    (await env.ph.request('GET', `/v1/inbound/threads/${first.thread_id}`, { key: other.apiKey })).status,
    404,
  );
});

test('a reply goes out through the send path with threading headers, once per Idempotency-Key, into the thread', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  await env.send({
    from: 'Ann <ann@sender.example>',
    replyTo: 'tickets@sender.example',
    to: `support@${DOMAIN}`,
    subject: 'Question about my order',
    text: 'Where is it?',
    messageId: '<q-2@sender.example>',
    inReplyTo: '<q-1@sender.example>',
    references: '<q-0@sender.example> <q-1@sender.example>',
  });
  await env.settled();
  const question = await received(env, 'Question about my order');
  const body = {
    from: `Acme Support <support@${DOMAIN}>`,
    text: 'It ships today.',
    html: '<p>It ships today.</p>',
  };

  const reply = await env.ph.request('POST', `/v1/inbound/emails/${question.id}/reply`, {
    body,
    headers: { 'idempotency-key': 'reply-1' },
  });
  t.is(reply.status, 202);
  t.regex(reply.body.id, /^msg_/);
  t.like(reply.body, { status: 'queued', thread_id: question.thread_id, in_reply_to: 'q-2@sender.example' });

  const stored = await storedMessage(env, reply.body.id);
  t.is(stored.subject, 'Re: Question about my order');
  t.deepEqual(stored.to, ['tickets@sender.example'], 'a reply goes to Reply-To when there is one');
  t.deepEqual(stored.headers, {
    'In-Reply-To': '<q-2@sender.example>',
    References: '<q-0@sender.example> <q-1@sender.example> <q-2@sender.example>',
  });

  const again = await env.ph.request('POST', `/v1/inbound/emails/${question.id}/reply`, {
    body,
    headers: { 'idempotency-key': 'reply-1' },
  });
  t.is(again.status, 202);
  t.is(again.body.id, reply.body.id);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  // A test key of the same project has keys of its own: it is never answered with the live reply
  // (nor would a live key be with a test reply, whose mail only reaches the sandbox).
  const testKey = await env.ph.createKey(env.ph.owner.projectId, ['inbound:write', 'emails:send'], 'test');
  const fromTest = await env.ph.request('POST', `/v1/inbound/emails/${question.id}/reply`, {
    body,
    key: testKey,
    headers: { 'idempotency-key': 'reply-1' },
  });
  t.is(fromTest.status, 202);
  t.not(fromTest.body.id, reply.body.id);
  t.is(fromTest.headers.get('idempotent-replayed'), null);
  const [a, b] = await Promise.all(
    [1, 2].map(() =>
      env.ph.request('POST', `/v1/inbound/emails/${question.id}/reply`, {
        body,
        headers: { 'idempotency-key': 'reply-2' },
      }),
    ),
  );
  t.is(a?.status, 202);
  t.is(b?.status, 202);
  t.is(a?.body.id, b?.body.id, 'two concurrent requests with one key send one reply');
  t.not(a?.body.id, reply.body.id);
  const [count] = (await query<{ n: number }>(
    env.ph.server.kernel.store,
    "select count(*) as n from messages where subject = 'Re: Question about my order'",
  )) as [{ n: number }];
  t.is(count.n, 3);

  // Ann answers the reply: her message names the reply's Message-ID and joins the same thread.
  await env.send({
    from: 'Ann <ann@sender.example>',
    to: `support@${DOMAIN}`,
    subject: 'Re: Question about my order',
    text: 'Great, thanks.',
    inReplyTo: `<${reply.body.id}@${DOMAIN}>`,
  });
  await env.settled();
  const thanks = await received(env, 'Re: Question about my order');
  t.is(thanks.thread_id, question.thread_id);
  // The live key's thread: the test key's reply is in the test key's view of it only.
  const thread = await env.ph.request('GET', `/v1/inbound/threads/${question.thread_id}`);
  t.deepEqual(
    thread.body.messages.map((m: { direction: string; id: string }) => [m.direction, m.id]),
    [
      ['inbound', question.id],
      ['outbound', reply.body.id],
      ['outbound', a?.body.id],
      ['inbound', thanks.id],
    ],
  );
});

test('a reply is refused without a valid Idempotency-Key, content, a verified sender or the emails:send scope', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  await env.send({ from: 'ann@sender.example', to: `support@${DOMAIN}`, subject: 'Hello', text: 'Hi' });
  await env.settled();
  const question = await received(env, 'Hello');
  const url = `/v1/inbound/emails/${question.id}/reply`;
  const body = { from: `support@${DOMAIN}`, text: 'Hi back' };

  const noKey = await env.ph.request('POST', url, { body });
  t.is(noKey.status, 400);
  t.regex(noKey.body.error, /Idempotency-Key/);
  t.is(
    (await env.ph.request('POST', url, { body, headers: { 'idempotency-key': 'k'.repeat(201) } })).status,
    400,
  );
  t.is(
    (await env.ph.request('POST', url, { body, headers: { 'idempotency-key': 'k'.repeat(200) } })).status,
    202,
  );
  const noContent = await env.ph.request('POST', url, {
    body: { from: body.from },
    headers: { 'idempotency-key': 'a' },
  });
  t.is(noContent.status, 400);
  const unknownField = await env.ph.request('POST', url, {
    body: { ...body, subject: 'x' },
    headers: { 'idempotency-key': 'b' },
  });
  t.is(unknownField.status, 400);
  const unverified = await env.ph.request('POST', url, {
    body: { from: 'me@unverified.example', text: 'x' },
    headers: { 'idempotency-key': 'c' },
  });
  t.is(unverified.status, 403);
  t.is(
    (
      await env.ph.request('POST', '/v1/inbound/emails/inb_NOPE/reply', {
        body,
        headers: { 'idempotency-key': 'd' },
      })
    ).status,
    404,
  );
  const inboundOnly = await env.ph.createKey(env.ph.owner.projectId, ['inbound:write', 'inbound:read']);
  const noScope = await env.ph.request('POST', url, {
    body,
    key: inboundOnly,
    headers: { 'idempotency-key': 'e' },
  });
  t.is(noScope.status, 403);
  t.regex(noScope.body.error, /emails:send/);
});
