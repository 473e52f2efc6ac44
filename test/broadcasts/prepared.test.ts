/**
 * A broadcast scheduled ahead is prepared before its time (src/broadcasts/preparation.ts): its
 * messages composed and signed, none sent before the send time; at the send time who receives it
 * is decided as ever (a contact who left meanwhile gets nothing, one who changed gets a message
 * composed then), the prepared bytes go out as prepared, and what was not sent is swept.
 */
import test from 'ava';
import { simpleParser } from 'mailparser';
import { rows } from '../delivery/env.js';
import { dkimpyVerify } from '../helpers/dkimpy-verify.js';
import { audienceWith, headersOf, startBroadcastEnv, until } from './env.js';

/** Creates a broadcast and schedules it `aheadMs` from now; returns its ID and send time. */
async function scheduleAhead(
  env: Awaited<ReturnType<typeof startBroadcastEnv>>,
  body: Record<string, unknown>,
  aheadMs: number,
): Promise<{ id: string; sendAt: number }> {
  const created = await env.ph.request('POST', '/v1/broadcasts', {
    body: { from: 'Acme News <news@acme.test>', subject: 'News', html: '<p>News</p>', ...body },
  });
  if (created.status !== 201) throw new Error(`broadcast: ${created.status} ${created.text}`);
  // Whole seconds: the Date header has no finer unit.
  const sendAt = Math.ceil((Date.now() + aheadMs) / 1000) * 1000;
  const scheduled = await env.ph.request('POST', `/v1/broadcasts/${created.body.id}/schedule`, {
    body: { send_at: new Date(sendAt).toISOString() },
  });
  if (scheduled.status !== 202) throw new Error(`schedule: ${scheduled.status} ${scheduled.text}`);
  return { id: created.body.id as string, sendAt };
}

const renderings = (env: Awaited<ReturnType<typeof startBroadcastEnv>>, id: string) =>
  Number(
    rows<{ n: number }>(
      env.ph,
      'select count(*) as n from broadcast_renderings where broadcast_id = ?',
      id,
    )[0]?.n ?? 0,
  );

test('a broadcast scheduled ahead is prepared before its time and sent as prepared, to whom the audience holds at the send time', async (t) => {
  t.timeout(240_000);
  const env = await startBroadcastEnv(t);
  const { ph, peer } = env;
  const audience = await audienceWith(env, [
    { email: 'ann@example.net', first_name: 'Ann' },
    { email: 'bo@example.net', first_name: 'Bo' },
    { email: 'cy@example.net', first_name: 'Cy' },
    { email: 'blocked@example.net' },
  ]);
  await ph.request('POST', '/v1/suppressions', {
    body: { email: 'blocked@example.net', reason: 'hard_bounce' },
  });
  const { id, sendAt } = await scheduleAhead(
    env,
    {
      audience_id: audience,
      name: 'Ahead',
      subject: 'Hello {{first_name}}',
      html: '<p>Hi {{first_name}}</p>',
    },
    8_000,
  );

  const prepared = await until('the broadcast to be prepared', async () => {
    const res = await ph.request('GET', `/v1/broadcasts/${id}`);
    return res.body.prepared_at !== null ? res.body : undefined;
  });
  t.true(Date.now() < sendAt, 'prepared before its send time');
  t.is(prepared.status, 'scheduled');
  t.is(prepared.progress.prepared, 3, 'every subscribed contact not suppressed');
  t.is(renderings(env, id), 3);
  t.is(peer.messages.length, 0, 'nothing is sent before the send time');

  // Before the send time: Bo leaves, Cy is renamed.
  const bo = (await ph.request('GET', `/v1/audiences/${audience}/contacts/bo@example.net`)).body;
  await ph.server.services.audiences.unsubscribe(bo.id, { source: 'api' });
  const renamed = await ph.request('PATCH', `/v1/audiences/${audience}/contacts/cy@example.net`, {
    body: { first_name: 'Cyril' },
  });
  t.is(renamed.status, 200, renamed.text);

  const received = await peer.waitFor(2, 60_000);
  const byRcpt = new Map(received.map((m) => [m.rcptTo[0], m]));
  t.deepEqual([...byRcpt.keys()].sort(), ['ann@example.net', 'cy@example.net']);
  const ann = byRcpt.get('ann@example.net')?.data ?? Buffer.alloc(0);
  const cy = byRcpt.get('cy@example.net')?.data ?? Buffer.alloc(0);
  t.true(Date.now() >= sendAt, 'sent at its time');

  // Ann's message is the one prepared: dated for the send time, signed, queued under its ID.
  const annHeaders = headersOf(ann);
  t.is(new Date(annHeaders.get('date') ?? '').getTime(), sendAt);
  const verdict = await dkimpyVerify(ann, { host: env.dns.host, port: env.dns.port });
  t.true(verdict.ok, verdict.output);
  const signed = /\bh=([^;]*)/
    .exec(annHeaders.get('dkim-signature') ?? '')?.[1]
    ?.replace(/\s+/g, '')
    .toLowerCase();
  t.true(signed?.split(':').includes('list-unsubscribe-post'), `h=${signed}`);
  t.is((await simpleParser(ann)).subject, 'Hello Ann');
  // Signed when it was prepared (t=), seconds before it was sent; Cy's below was signed at delivery.
  const signedAt = (data: Buffer) =>
    Number(/\bt=(\d+)/.exec(headersOf(data).get('dkim-signature') ?? '')?.[1]);
  t.true(signedAt(ann) < sendAt / 1000 - 1, `t=${signedAt(ann)} before ${sendAt / 1000}`);
  t.true(signedAt(cy) >= sendAt / 1000, `t=${signedAt(cy)} at or after ${sendAt / 1000}`);
  const annId = /^<(msg_[0-9A-Z]+)@/.exec(annHeaders.get('message-id') ?? '')?.[1];
  const [ledger] = rows<{ message_id: string; created: number }>(
    ph,
    `select l.message_id, m.created_at as created from broadcast_messages l
       join messages m on m.id = l.message_id join contacts c on c.id = l.contact_id
      where l.broadcast_id = ? and c.email = 'ann@example.net'`,
    id,
  );
  t.is(ledger?.message_id, annId, 'the prepared message was queued under its ID');

  // Cy changed after the preparation: the message is composed at delivery, with the new name.
  const cyParsed = await simpleParser(cy);
  t.is(cyParsed.subject, 'Hello Cyril');
  t.true(String(cyParsed.html).includes('Hi Cyril'));
  t.true((await dkimpyVerify(cy, { host: env.dns.host, port: env.dns.port })).ok);

  const done = await until('the broadcast to be sent and its renderings swept', async () => {
    const res = await ph.request('GET', `/v1/broadcasts/${id}`);
    return res.body.status === 'sent' && res.body.progress.delivered === 2 && renderings(env, id) === 0
      ? res.body
      : undefined;
  });
  t.is(done.progress.sent, 2);
  t.is(done.progress.prepared, 3);
  t.is(
    Number(rows<{ n: number }>(ph, 'select count(*) as n from message_raw')[0]?.n ?? 0),
    0,
    'delivered messages keep no rendering',
  );
});

test('a prepared broadcast cancelled before its time sends nothing and leaves no rendering; moving its time prepares it again', async (t) => {
  t.timeout(240_000);
  const env = await startBroadcastEnv(t);
  const { ph, peer } = env;
  const audience = await audienceWith(env, [{ email: 'ann@example.net' }, { email: 'bo@example.net' }]);

  const moved = await scheduleAhead(env, { audience_id: audience, name: 'Moved' }, 60_000);
  await until('the first preparation', async () =>
    (await ph.request('GET', `/v1/broadcasts/${moved.id}`)).body.prepared_at !== null ? true : undefined,
  );
  const later = moved.sendAt + 120_000;
  const again = await ph.request('POST', `/v1/broadcasts/${moved.id}/schedule`, {
    body: { send_at: new Date(later).toISOString() },
  });
  t.is(again.status, 202, again.text);
  t.is(again.body.prepared_at, null, 'a new time starts the preparation over');
  await until('the preparation for the new time', async () => {
    const res = await ph.request('GET', `/v1/broadcasts/${moved.id}`);
    return res.body.prepared_at !== null && res.body.progress.prepared === 2 ? true : undefined;
  });
  const dated = rows<{ send_at: number }>(
    ph,
    'select send_at from broadcast_renderings where broadcast_id = ?',
    moved.id,
  ).map((r) => Number(r.send_at));
  t.deepEqual(dated, [later, later], 'each message dated for the new time, none left for the old one');

  const cancelled = await scheduleAhead(env, { audience_id: audience, name: 'Cancelled' }, 5_000);
  await until('its preparation', async () =>
    (await ph.request('GET', `/v1/broadcasts/${cancelled.id}`)).body.prepared_at !== null ? true : undefined,
  );
  t.is(renderings(env, cancelled.id), 2);
  t.is((await ph.request('POST', `/v1/broadcasts/${cancelled.id}/cancel`)).status, 204);
  await until('its renderings to be swept', async () =>
    renderings(env, cancelled.id) === 0 ? true : undefined,
  );
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, cancelled.sendAt - Date.now()) + 2_000));
  t.is(peer.messages.length, 0, 'nothing was sent');
  t.is(Number(rows<{ n: number }>(ph, 'select count(*) as n from messages')[0]?.n ?? 0), 0);
  t.is((await ph.request('POST', `/v1/broadcasts/${moved.id}/cancel`)).status, 204);
});
