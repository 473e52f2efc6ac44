/**
 * Signing of queued mail whose sending domain changed after it was accepted: a deleted domain's
 * mail fails rather than going out unsigned; a domain that failed a DNS check still signs.
 */
import test from 'ava';
import type { Posthorn } from '../helpers/server.js';
import { type DeliveryEnv, eventually, events, mx, send, settled, startDeliveryEnv } from './env.js';

/** Sends to example.net while its MX does not answer, and waits for the first deferral. */
async function queuedBehindDns(env: DeliveryEnv, from?: string, to = 'ann@example.net'): Promise<string> {
  const domain = to.slice(to.indexOf('@') + 1);
  env.dns.fail(domain, 'servfail');
  const id = await send(env, { to: [to], ...(from ? { from } : {}) });
  await eventually('a deferral', () => events(env.ph, id).some((e) => e.type === 'email.delivery_delayed'));
  return id;
}

/**
 * How long a queued message may take to settle once its MX answers: the resolver keeps the
 * SERVFAIL of the first attempt for 5 s (answer-cache.ts, `failureTtl`), so retries fail until it
 * expires; the rest is margin for a loaded machine (the default 8 s wait ran out under the suite).
 */
const SETTLE_MS = 15_000;

async function domainId(ph: Posthorn, name: string): Promise<string> {
  const list = await ph.request('GET', '/v1/domains');
  return (list.body.data as Array<{ id: string; name: string }>).find((d) => d.name === name)?.id ?? '';
}

test('queued mail whose sending domain is deleted fails with email.failed instead of going out unsigned', async (t) => {
  const env = await startDeliveryEnv(t);
  const id = await queuedBehindDns(env);
  const deleted = await env.ph.request('DELETE', `/v1/domains/${await domainId(env.ph, 'acme.test')}`);
  t.is(deleted.status, 204);
  env.dns.clear('example.net');
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  t.is(await settled(env.ph, id, SETTLE_MS), 'failed');
  const failed = events(env.ph, id).find((e) => e.type === 'email.failed');
  t.is(failed?.recipient, 'ann@example.net');
  t.regex(JSON.stringify(failed?.data), /the sending domain acme\.test was deleted from the project/);
  t.is(env.peer.messages.length, 0, 'nothing reached the MX');
});

test('queued mail from a domain that failed its DNS check is still delivered signed', async (t) => {
  const env = await startDeliveryEnv(t);
  const id = await queuedBehindDns(env);
  const domain = await domainId(env.ph, 'acme.test');
  env.dns.set('acme.test', 'TXT', ['v=spf1 -all']);
  t.is((await env.ph.request('POST', `/v1/domains/${domain}/verify`)).body.status, 'failed');
  env.dns.clear('example.net');
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  t.is(await settled(env.ph, id, SETTLE_MS), 'delivered');
  const [received] = await env.peer.waitFor(1);
  t.regex(received?.data.toString('latin1') ?? '', /^DKIM-Signature: [^\r]*d=acme\.test/);
});

test('mail from the shared sandbox sender, which has no domain, goes out unsigned', async (t) => {
  const env = await startDeliveryEnv(t);
  const id = await queuedBehindDns(env, 'Sandbox <sandbox@posthorn.test>', 'owner@example.test');
  env.dns.clear('example.test');
  mx(env.dns, 'example.test', [{ host: 'mx1.example.test', ip: '127.0.0.1' }]);
  t.is(await settled(env.ph, id, SETTLE_MS), 'delivered');
  const [received] = await env.peer.waitFor(1);
  t.false((received?.data.toString('latin1') ?? '').includes('DKIM-Signature'));
});
