/**
 * Signing at admission (delivery/compose/prerender.ts): an accepted live message is composed and
 * DKIM-signed once, right after its 202, and delivery relays exactly those bytes; keys that
 * changed in between get a new signature; the stored bytes go once the message cannot be sent.
 */
import test, { type ExecutionContext } from 'ava';
import { FINAL_MESSAGE_STATUSES } from '../../../src/delivery/queue/message-status.js';
import { count, email, verifiedDomain } from '../../emails/helpers.js';
import { dkimpyVerify } from '../../helpers/dkimpy-verify.js';
import { type Posthorn, startPosthorn } from '../../helpers/server.js';
import { query } from '../../helpers/sql.js';
import {
  type DeliveryEnv,
  events,
  eventually,
  mx,
  rows,
  send,
  sendingDomain,
  settled,
  startDeliveryEnv,
} from '../env.js';

interface RawRow {
  signing: string;
  size: number;
  bytes: Buffer;
}

async function storedRendering(ph: Posthorn, messageId: string): Promise<RawRow | undefined> {
  return (
    await rows<RawRow>(ph, 'select signing, size, bytes from message_raw where message_id = ?', messageId)
  )[0];
}

/** The message as the receiving server reads it: one dot less at the start of each dotted line. */
function unstuffed(bytes: Buffer): Buffer {
  return Buffer.from(bytes.toString('latin1').replace(/(^|\r\n)\./g, '$1'), 'latin1');
}

function dkimSignature(message: Buffer): string {
  return /^DKIM-Signature: .*?(?=\r\n\S)/ms.exec(message.toString('latin1'))?.[0] ?? '';
}

/**
 * Sends `body` with the engine off (the tests start it themselves, `deliverNow`) and waits until
 * the message's rendering is stored; each recipient domain's MX is the test peer.
 */
async function queuedAndRendered(env: DeliveryEnv, body: Record<string, unknown>): Promise<string> {
  for (const address of body.to as string[]) {
    const domain = address.slice(address.indexOf('@') + 1);
    mx(env.dns, domain, [{ host: `mx.${domain}`, ip: '127.0.0.1' }]);
  }
  const id = await send(env, body);
  await env.ph.server.services.delivery.prerendered();
  return id;
}

/** Starts the delivery engine, stopped again at the end of the test. */
function deliverNow(t: ExecutionContext, env: DeliveryEnv): void {
  const engine = env.ph.server.services.delivery.start({ deliver: true });
  t.teardown(() => engine.stop());
}

/** The engine off: nothing is delivered before the test starts it. */
const OFF = { delivery: { enabled: false } };

test('an accepted message is signed at admission, and delivery sends those very bytes', async (t) => {
  const env = await startDeliveryEnv(t, { config: OFF });
  const id = await queuedAndRendered(env, {
    to: ['ann@example.net'],
    // Larger than a slot of the render workers' shared memory (256 KB): handed over on its own.
    text: `Hello\n.a line that starts with a dot\n${'All work and no play. '.repeat(14_000)}\nbye`,
  });
  const stored = await storedRendering(env.ph, id);
  t.truthy(stored, 'stored before any delivery');
  const signed = unstuffed(stored?.bytes ?? Buffer.alloc(0));
  t.is(signed.length, stored?.size ?? -1);
  t.regex(dkimSignature(signed), /d=acme\.test/);
  deliverNow(t, env);
  t.is(await settled(env.ph, id), 'delivered');
  const [received] = await env.peer.waitFor(1);
  t.true(received?.data.equals(signed), 'the MX got the bytes signed at admission');
  const verdict = await dkimpyVerify(received?.data ?? Buffer.alloc(0), env.dns);
  t.true(verdict.ok, verdict.output);
  await eventually(
    'the stored rendering to go',
    async () => (await storedRendering(env.ph, id)) === undefined,
  );
});

test('a message to several domains is rendered once: each MX gets the same bytes', async (t) => {
  const env = await startDeliveryEnv(t, { config: OFF });
  const id = await queuedAndRendered(env, { to: ['ann@one.example', 'bob@two.example'] });
  deliverNow(t, env);
  t.is(await settled(env.ph, id), 'delivered');
  const [first, second] = await env.peer.waitFor(2);
  t.is(new Set([...(first?.rcptTo ?? []), ...(second?.rcptTo ?? [])]).size, 2);
  t.true(first?.data.equals(second?.data ?? Buffer.alloc(0)), 'one boundary, one signature');
});

test('mail queued before its domain got new keys is signed again with the new ones', async (t) => {
  const env = await startDeliveryEnv(t, { config: OFF });
  const id = await queuedAndRendered(env, { to: ['ann@example.net'] });
  const before = await storedRendering(env.ph, id);
  // The domain deleted and added again: new keys, published in place of the old.
  const list = await env.ph.request('GET', '/v1/domains');
  const domain = (list.body.data as { id: string }[])[0];
  t.is((await env.ph.request('DELETE', `/v1/domains/${domain?.id}`)).status, 204);
  await sendingDomain(env, 'acme.test');
  deliverNow(t, env);
  t.is(await settled(env.ph, id), 'delivered');
  const [received] = await env.peer.waitFor(1);
  const data = received?.data ?? Buffer.alloc(0);
  t.not(dkimSignature(data), dkimSignature(unstuffed(before?.bytes ?? Buffer.alloc(0))));
  const verdict = await dkimpyVerify(data, env.dns);
  t.true(verdict.ok, verdict.output);
  t.deepEqual(
    events(env.ph, id).map((e) => e.type),
    ['email.sent', 'email.delivered'],
  );
});

test('test-mode sends are not rendered at admission', async (t) => {
  const env = await startDeliveryEnv(t, { config: OFF });
  const key = await env.ph.createKey(env.ph.owner.projectId, ['full_access'], 'test');
  const id = await send(env, { to: ['ann@example.net'] }, key);
  await env.ph.server.services.delivery.prerendered();
  t.is(await storedRendering(env.ph, id), undefined);
});

test('the stored rendering goes when a scheduled send is cancelled, and on every final status', async (t) => {
  const env = await startDeliveryEnv(t, { config: OFF });
  const sendAt = new Date(Date.now() + 3_600_000).toISOString();
  const scheduled = await send(env, { to: ['ann@example.net'], send_at: sendAt });
  await env.ph.server.services.delivery.prerendered();
  t.truthy(await storedRendering(env.ph, scheduled));
  t.is((await env.ph.request('DELETE', `/v1/emails/${scheduled}/schedule`)).status, 204);
  t.is(await storedRendering(env.ph, scheduled), undefined);

  for (const status of FINAL_MESSAGE_STATUSES) {
    const id = await queuedAndRendered(env, { to: ['ann@example.net'] });
    t.truthy(await storedRendering(env.ph, id), status);
    await query(env.ph.server.kernel.store, 'update messages set status = ? where id = ?', status, id);
    t.is(await storedRendering(env.ph, id), undefined, status);
  }
  // A status that still sends keeps it.
  const deferred = await queuedAndRendered(env, { to: ['ann@example.net'] });
  await query(env.ph.server.kernel.store, "update messages set status = 'deferred' where id = ?", deferred);
  t.truthy(await storedRendering(env.ph, deferred));
});

test('with the engine off, accepted mail is still signed; retention drops what no job will send', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const day = 86_400_000;
  const sent = await ph.request('POST', '/v1/emails', { body: email({ html: '<p>sent</p>' }) });
  const waiting = await ph.request('POST', '/v1/emails', { body: email({ html: '<p>waiting</p>' }) });
  const scheduled = await ph.request('POST', '/v1/emails', {
    body: email({ html: '<p>later</p>', send_at: new Date(Date.now() + 3 * day).toISOString() }),
  });
  for (const res of [sent, waiting, scheduled]) t.is(res.status, 202, res.text);
  await ph.server.services.delivery.prerendered();
  t.is(await count(ph, 'message_raw'), 3);
  // The first one's job ended without a final status (finished by hand: the engine is off).
  await query(
    ph.server.kernel.store,
    `update delivery_jobs set state = 'done' where message_id = ?`,
    sent.body.id,
  );
  const purge = (cutoff: number) => ph.server.services.delivery.purgeRawBefore(cutoff);
  t.is(await purge(Date.now() - 90 * day), 0, 'nothing is old enough yet');
  t.is(await purge(Date.now() + day), 1);
  const left = await query(ph.server.kernel.store, 'select message_id from message_raw order by message_id');
  t.deepEqual(left, [{ message_id: waiting.body.id }, { message_id: scheduled.body.id }]);
});
