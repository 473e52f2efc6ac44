/**
 * A thread shows the sent messages of the calling key's mode only, as `GET /v1/emails` does: a
 * reply sent with a `ph_test_` key (which never left the sandbox) is not in the thread a live key
 * reads, and a live reply is not in a test key's. Received mail has no mode: both see it.
 */
import test from 'ava';
import { createRoute, DOMAIN, startInboundEnv } from '../env.js';

test('a thread lists the sent messages of the calling key’s mode only; the other mode’s reply is no position in it', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'support');
  await env.send({
    from: 'Ann <ann@sender.example>',
    to: `support@${DOMAIN}`,
    subject: 'Question about my order',
    text: 'Where is it?',
    messageId: '<q-1@sender.example>',
  });
  await env.settled();
  const liveKey = env.ph.owner.apiKey;
  const testKey = await env.ph.createKey(
    env.ph.owner.projectId,
    ['inbound:read', 'inbound:write', 'emails:send'],
    'test',
  );
  const [question] = (await env.ph.request('GET', '/v1/inbound/emails')).body.data as {
    id: string;
    thread_id: string;
  }[];
  if (!question) throw new Error('nothing received');
  const reply = async (key: string, text: string) => {
    const res = await env.ph.request('POST', `/v1/inbound/emails/${question.id}/reply`, {
      key,
      body: { from: `Acme Support <support@${DOMAIN}>`, text },
      headers: { 'idempotency-key': text },
    });
    if (res.status !== 202) throw new Error(`reply refused: ${res.text}`);
    return res.body.id as string;
  };
  const liveReply = await reply(liveKey, 'It ships today.');
  const testReply = await reply(testKey, 'Trying the sandbox.');

  const thread = async (key: string, query = '') =>
    env.ph.request('GET', `/v1/inbound/threads/${question.thread_id}${query}`, { key });
  const shown = async (key: string) =>
    ((await thread(key)).body.messages as { direction: string; id: string }[]).map(
      (m) => `${m.direction} ${m.id}`,
    );
  t.deepEqual(await shown(liveKey), [`inbound ${question.id}`, `outbound ${liveReply}`]);
  t.deepEqual(await shown(testKey), [`inbound ${question.id}`, `outbound ${testReply}`]);

  // Paging from the other mode's reply is paging from a message that is not in the thread.
  const fromTestReply = await thread(liveKey, `?after=${testReply}`);
  t.is(fromTestReply.status, 400, fromTestReply.text);
  t.regex(fromTestReply.body.error, /is not a message of thread/);
  t.is((await thread(testKey, `?after=${liveReply}`)).status, 400);
  // A page of one ends with the key's own last message: has_more counts nothing of the other mode.
  const page = await thread(liveKey, '?limit=1');
  t.like(page.body, { has_more: true, messages: [{ id: question.id }] });
  t.like((await thread(liveKey, `?limit=1&after=${question.id}`)).body, {
    has_more: false,
    messages: [{ id: liveReply }],
  });
});
