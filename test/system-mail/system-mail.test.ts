import test from 'ava';
import { simpleParser } from 'mailparser';
import { dkimpyVerify } from '../helpers/dkimpy-verify.js';
import { mx, rows, settled, startDeliveryEnv } from '../delivery/env.js';

const SYSTEM_FROM = 'Posthorn <no-reply@ops.posthorn-mail.test>';

test("system mail reaches a real MX from the system sender, DKIM-signed with the system project's keys, recorded as a message of the system project", async (t) => {
  const env = await startDeliveryEnv(t, { domain: false, config: { system_mail: { from: SYSTEM_FROM } } });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const { systemMail, domains } = env.ph.server.services;
  const system = await systemMail.ensureProject();

  const ref = await systemMail.send({
    to: 'ann@example.net',
    subject: 'Your sign-in code',
    text: 'Your code is 123456.',
    html: '<p>Your code is <b>123456</b>.</p>',
    tags: { kind: 'login_code' },
  });
  // The operator publishes the records the system project's domain shows.
  const listed = await domains.list(system.id, { limit: 10 });
  t.deepEqual(
    listed.data.map((d) => d.name),
    ['ops.posthorn-mail.test'],
  );
  for (const record of listed.data[0]?.records ?? []) {
    if (record.type === 'TXT') env.dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
  }

  const [received] = await env.peer.waitFor(1, 30_000);
  if (!received) throw new Error('nothing received');
  t.deepEqual(received.rcptTo, ['ann@example.net']);
  t.true(received.mailFrom.endsWith('@bounces.ops.posthorn-mail.test'), received.mailFrom);
  const parsed = await simpleParser(received.data);
  t.is(parsed.from?.text, '"Posthorn" <no-reply@ops.posthorn-mail.test>');
  t.is(parsed.subject, 'Your sign-in code');
  t.is(parsed.text?.trim(), 'Your code is 123456.');
  t.regex(received.data.toString('latin1'), /^DKIM-Signature: [\s\S]*d=ops\.posthorn-mail\.test/);
  const verdict = await dkimpyVerify(received.data, { host: env.dns.host, port: env.dns.port });
  t.true(verdict.ok, verdict.output);

  t.is(await settled(env.ph, ref.id, 30_000), 'delivered');
  const [message] = rows<{ project_id: string; api_key_id: string | null; mode: string; tags: string }>(
    env.ph,
    'select project_id, api_key_id, mode, tags from messages where id = ?',
    ref.id,
  );
  t.is(message?.project_id, system.id);
  t.is(message?.api_key_id, null);
  t.is(message?.mode, 'live');
  t.deepEqual(JSON.parse(message?.tags ?? '{}'), { kind: 'login_code' });
});

test('the system organization is made once, however many callers ask at the same time', async (t) => {
  const env = await startDeliveryEnv(t, { domain: false });
  const { projects } = env.ph.server.services;
  const made = await Promise.all([1, 2, 3, 4].map(() => projects.ensureSystemProject()));
  t.is(new Set(made.map((p) => p.id)).size, 1);
  t.is(made[0]?.status, 'active');
  const orgs = rows<{ n: number }>(env.ph, "select count(*) as n from organizations where kind = 'system'");
  t.is(orgs[0]?.n, 1);
});

test('without system_mail.from the sandbox sender sends system mail, also signed by the system project', async (t) => {
  const env = await startDeliveryEnv(t, { domain: false });
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const { systemMail } = env.ph.server.services;
  t.is(systemMail.from, env.ph.config.sandbox.from);
  await systemMail.send({ to: 'bo@example.net', subject: 'Hello', text: 'Hi.' });
  const [received] = await env.peer.waitFor(1, 30_000);
  t.regex(received?.data.toString('latin1') ?? '', /^DKIM-Signature: [\s\S]*d=posthorn\.test/);
});
