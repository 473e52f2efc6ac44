/**
 * A dedicated IP at work: after an operator assigns 127.0.0.3 (standing in for a public address)
 * to a project, a real SMTP server on loopback sees that project's mail arrive from it, up to the
 * warm-up plan's daily limit per provider; the rest, and every other project's mail, arrives from
 * the shared address 127.0.0.2.
 */
import test from 'ava';
import {
  EHLO_NAME,
  type DeliveryEnv,
  eventually,
  messageStatus,
  mx,
  send,
  startDeliveryEnv,
} from '../delivery/env.js';

const GMAIL_MX = 'gmail-smtp-in.l.google.com';

/** A verified sending domain of the project whose key is `key` (created, published, verified over the API). */
async function domainOf(env: DeliveryEnv, name: string, key: string): Promise<void> {
  const created = await env.ph.request('POST', '/v1/domains', { body: { name }, key });
  if (created.status !== 201) throw new Error(`creating ${name}: ${created.text}`);
  for (const record of created.body.records as {
    type: string;
    host: string;
    value: string;
    value_strings?: string[];
  }[])
    if (record.type === 'TXT') env.dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
  env.dns.set(EHLO_NAME, 'A', ['127.0.0.1']);
  const verified = await env.ph.request('POST', `/v1/domains/${created.body.id}/verify`, { key });
  if (verified.body.status !== 'verified') throw new Error(`verifying ${name}: ${verified.text}`);
}

test('a project’s mail leaves from its dedicated IP up to the plan’s daily limit per provider, the rest and other projects’ from the shared one', async (t) => {
  const env = await startDeliveryEnv(t, {
    config: {
      delivery: { source_ips: ['127.0.0.2', '127.0.0.3'] },
      reputation: { warmup_plans: [{ name: 'tiny', daily_limits: [3, 10] }] },
    },
  });
  mx(env.dns, 'gmail.test', [{ host: GMAIL_MX, ip: '127.0.0.1' }]);
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  const { services } = env.ph.server;

  const request = await env.ph.request('POST', '/v1/dedicated-ips/requests', {
    body: { monthly_volume: 50_000, reason: 'Receipts' },
  });
  t.is(request.status, 202, request.text);
  await services.reputation.dedicatedIps.approve(
    request.body.id,
    { ip: '127.0.0.3', plan: 'tiny' },
    'operator',
  );
  // A running server reads new assignments within seconds; the test does not wait for the timer.
  await services.reputation.sources.load();

  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await send(env, { to: [`reader${i}@gmail.test`] }));
  ids.push(await send(env, { to: ['ann@example.net'] }));
  const other = await env.ph.bootstrap();
  await domainOf(env, 'other.test', other.apiKey);
  const theirs = await env.ph.request('POST', '/v1/emails', {
    key: other.apiKey,
    body: { from: 'Other <hi@other.test>', to: ['bob@gmail.test'], subject: 'Hi', text: 'Hello' },
  });
  t.is(theirs.status, 202, theirs.text);
  for (const id of [...ids, theirs.body.id])
    await eventually(`delivery of ${id}`, () => messageStatus(env.ph, id) === 'delivered', 30_000);

  const messages = await env.peer.waitFor(7);
  const from = (rcpt: string) => messages.find((m) => m.rcptTo.includes(rcpt))?.remoteAddress;
  const gmail = Array.from({ length: 5 }, (_, i) => from(`reader${i}@gmail.test`));
  t.is(gmail.filter((address) => address === '127.0.0.3').length, 3, JSON.stringify(gmail));
  t.is(gmail.filter((address) => address === '127.0.0.2').length, 2, JSON.stringify(gmail));
  t.is(from('ann@example.net'), '127.0.0.3', 'each provider has its own daily limit');
  t.is(from('bob@gmail.test'), '127.0.0.2', 'another project never sends from the dedicated IP');

  const report = await env.ph.request('GET', '/v1/reputation');
  t.like(report.body.dedicated_ips.assignments[0], {
    ip: '127.0.0.3',
    plan: { name: 'tiny', daily_limits: [3, 10] },
    warmup: { day: 1, days: 2, limit_per_provider_today: 3, sent_today: { gmail: 3, default: 1 } },
  });
});
