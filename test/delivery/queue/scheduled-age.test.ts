import test from 'ava';
import { simpleParser } from 'mailparser';
import { events, mx, send, settled, startDeliveryEnv } from '../env.js';

/** A send_at `ms` ahead, on a whole second (the Date header has second precision). */
const wholeSecondAhead = (ms: number) => Math.ceil((Date.now() + ms) / 1000) * 1000;

test("a scheduled send's maximum age counts from its send_at, so a first greylisting is retried", async (t) => {
  // Due 4 s after acceptance with a maximum age of 3 s: counted from acceptance, the message would
  // be past its deadline on its first attempt and bounce at the first 4xx.
  const env = await startDeliveryEnv(t, { config: { delivery: { max_age: '3s', retry_schedule: ['1s'] } } });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  env.peer.rcptReply('ann@example.net', 451, '4.7.1 Greylisted, please try again', { times: 1 });
  const id = await send(env, { to: ['ann@example.net'], send_at: new Date(Date.now() + 4000).toISOString() });

  t.is(await settled(env.ph, id, 12_000), 'delivered');
  t.deepEqual(
    events(env.ph, id).map((e) => e.type),
    ['email.scheduled', 'email.sent', 'email.delivery_delayed', 'email.delivered'],
  );
  const suppressed = await env.ph.request('GET', '/v1/suppressions/ann@example.net');
  t.is(suppressed.status, 404, 'a greylisting is no bounce');
});

test('a scheduled send is dated, and its delivery latency measured, from its send_at', async (t) => {
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const sendAt = wholeSecondAhead(6000);
  const id = await send(env, { to: ['ann@example.net'], send_at: new Date(sendAt).toISOString() });
  // Counted from acceptance, the latency would be at least this; counted from send_at, far less.
  const aheadAtAcceptance = sendAt - Date.now();

  const [received] = await env.peer.waitFor(1, 15_000);
  const parsed = await simpleParser(received?.data ?? Buffer.alloc(0));
  // RFC 5322 §3.6.1: the origination date is when the message was ready to enter the mail system.
  t.is(parsed.date?.getTime(), sendAt, 'the Date header is the send_at, not the time of acceptance');

  t.is(await settled(env.ph, id), 'delivered');
  const delivered = events(env.ph, id).find((e) => e.type === 'email.delivered');
  const latency = delivered?.data.delivery.latency_ms as number;
  t.true(
    latency >= 0 && latency < aheadAtAcceptance,
    `latency ${latency} ms counts from the due time (acceptance was ${aheadAtAcceptance} ms before it)`,
  );
});
