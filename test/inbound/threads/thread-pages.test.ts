/**
 * Lists and threads read only what they show: a page of received emails or of a thread never
 * loads the messages' text, html or headers (30 received messages of 20 MB each once exhausted the
 * heap on one list request), and a thread is read one page at a time (`limit`, `after`,
 * `has_more`), however long the conversation.
 */
import test from 'ava';
import { createRoute, DOMAIN, startInboundEnv } from '../env.js';
import { query } from '../../helpers/sql.js';

const SUMMARY = ['cc', 'created_at', 'from_header', 'id', 'subject', 'thread_id', 'to'];

test('the list and thread queries read the summary columns only', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  await env.send({
    from: 'Ann <ann@sender.example>',
    to: `support@${DOMAIN}`,
    subject: 'A long one',
    text: 'x'.repeat(200_000),
    html: `<p>${'y'.repeat(200_000)}</p>`,
  });
  await env.settled();
  const { store } = env.ph.server.services.inbound;
  const [{ project_id: projectId, thread_id: threadId }] = (await query<{
    project_id: string;
    thread_id: string;
  }>(env.ph.server.kernel.store, 'select project_id, thread_id from inbound_messages')) as [
    { project_id: string; thread_id: string },
  ];

  const listed = await store.listMessages(projectId, 50, undefined);
  t.is(listed.length, 1);
  t.deepEqual(Object.keys(listed[0] as object).sort(), SUMMARY);
  const inThread = await store.messagesInThread(threadId, 50);
  t.deepEqual(Object.keys(inThread[0] as object).sort(), SUMMARY);

  const page = await env.ph.request('GET', '/v1/inbound/emails');
  t.like(page.body.data[0], {
    subject: 'A long one',
    from: '"Ann" <ann@sender.example>',
    to: [`support@${DOMAIN}`],
  });
});

test('a thread is read a page at a time, oldest first, received and sent messages alike', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'hello');
  const sent = await env.ph.request('POST', '/v1/emails', {
    body: { from: `Acme <hello@${DOMAIN}>`, to: ['bob@example.net'], subject: 'Welcome', text: 'Hi Bob!' },
  });
  t.is(sent.status, 202);
  const chain = [`<${sent.body.id}@${DOMAIN}>`];
  for (const n of [1, 2, 3, 4]) {
    await env.send({
      from: 'Bob <bob@example.net>',
      to: `hello@${DOMAIN}`,
      subject: `Re: Welcome (${n})`,
      text: `Answer ${n}.`,
      messageId: `<bob-${n}@example.net>`,
      inReplyTo: chain[chain.length - 1],
      references: [...chain],
    });
    await env.settled();
    chain.push(`<bob-${n}@example.net>`);
  }
  const list = await env.ph.request('GET', '/v1/inbound/emails');
  const threadId = list.body.data[0].thread_id as string;

  const whole = await env.ph.request('GET', `/v1/inbound/threads/${threadId}?limit=100`);
  t.is(whole.status, 200);
  t.false(whole.body.has_more);
  t.deepEqual(
    whole.body.messages.map((m: { direction: string; subject: string }) => `${m.direction} ${m.subject}`),
    [
      'outbound Welcome',
      'inbound Re: Welcome (1)',
      'inbound Re: Welcome (2)',
      'inbound Re: Welcome (3)',
      'inbound Re: Welcome (4)',
    ],
  );

  const seen: string[] = [];
  const hasMore: boolean[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await env.ph.request(
      'GET',
      `/v1/inbound/threads/${threadId}?limit=2${after ? `&after=${after}` : ''}`,
    );
    t.is(page.status, 200);
    t.true(page.body.messages.length <= 2);
    seen.push(...page.body.messages.map((m: { id: string }) => m.id));
    hasMore.push(page.body.has_more);
    if (!page.body.has_more) break;
    after = page.body.messages[page.body.messages.length - 1].id;
  }
  t.deepEqual(hasMore, [true, true, false]);
  t.deepEqual(
    seen,
    whole.body.messages.map((m: { id: string }) => m.id),
  );

  t.is((await env.ph.request('GET', `/v1/inbound/threads/${threadId}?after=inb_nope`)).status, 400);
  t.is((await env.ph.request('GET', `/v1/inbound/threads/${threadId}?limit=0`)).status, 400);
  t.like((await env.ph.request('GET', `/v1/inbound/threads/${threadId}`)).body, { has_more: false });
});
