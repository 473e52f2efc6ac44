import test, { type ExecutionContext } from 'ava';
import { simpleParser } from 'mailparser';
import {
  events,
  eventually,
  FROM,
  messageStatus,
  mx,
  rows,
  sleep,
  startDeliveryEnv,
} from '../delivery/env.js';
import type { ConfigOverrides } from '../helpers/server.js';
import { connect, discover, onFreePort, register, signIn } from '../oauth/env.js';

/**
 * A real Posthorn delivering to a real SMTP server on loopback (the MX of example.net), a verified
 * sending domain, a signed-in owner, and an agent connected through oauth4webapi with emails:send.
 */
async function startAgentEnv(t: ExecutionContext, config: ConfigOverrides = {}) {
  const env = await onFreePort(config, (issuer) => startDeliveryEnv(t, { config: issuer }));
  mx(env.dns, 'example.net', [{ host: 'mx.example.net', ip: '127.0.0.1' }]);
  const { as } = await discover(env.ph);
  const session = await signIn(env.ph);
  const oauthEnv = { ph: env.ph, session, as, issuer: new URL(as.issuer) };
  const agent = await register(oauthEnv, { client_name: 'Support agent' });
  const tokens = await connect(oauthEnv, agent, 'emails:send emails:read');
  const send = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    env.ph.request('POST', '/v1/emails', {
      key: tokens.access_token,
      headers,
      body: {
        from: FROM,
        to: ['ann@example.net'],
        subject: 'Your refund',
        text: 'It is on its way.',
        ...body,
      },
    });
  return { ...env, session, agent, token: tokens.access_token, send };
}

type AgentEnv = Awaited<ReturnType<typeof startAgentEnv>>;

const approvals = (env: AgentEnv, query = '') =>
  env.ph.request('GET', `/v1/dashboard/send-approvals${query}`, { key: env.session });

test('an agent send waits for a member; approved, it is queued as a send is and reaches the MX', async (t) => {
  const env = await startAgentEnv(t);
  const sent = await env.send({}, { 'Idempotency-Key': 'refund-42' });
  t.is(sent.status, 202);
  t.is(sent.body.status, 'awaiting_approval');
  const id = sent.body.id as string;

  // Held: no delivery job, no email.sent, nothing at the MX.
  await sleep(600);
  t.is(env.peer.messages.length, 0);
  t.is(rows(env.ph, 'select id from delivery_jobs where message_id = ?', id).length, 0);
  t.deepEqual(events(env.ph, id), []);
  // The agent sees where it stands; its retry with the same key gets the same message.
  t.is(
    (await env.ph.request('GET', `/v1/emails/${id}`, { key: env.token })).body.status,
    'awaiting_approval',
  );
  const retry = await env.send({}, { 'Idempotency-Key': 'refund-42' });
  t.is(retry.body.id, id);

  const listed = await approvals(env);
  t.is(listed.status, 200);
  t.is(listed.body.data.length, 1);
  const [approval] = listed.body.data;
  t.regex(approval.id, /^apr_/);
  t.is(approval.status, 'pending');
  t.is(approval.client.client_name, 'Support agent');
  t.is(approval.authorized_by.email, 'owner@example.test');
  t.deepEqual(approval.message.to, ['ann@example.net']);
  t.is(approval.message.from, FROM);
  t.is(approval.message.subject, 'Your refund');
  t.is(approval.message.text, 'It is on its way.');
  t.truthy(Date.parse(approval.expires_at) > Date.now());

  const approved = await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/approve`, {
    key: env.session,
  });
  t.is(approved.status, 202);
  t.is(approved.body.status, 'approved');
  t.is(approved.body.decided_by, env.ph.owner.userId);

  const [received] = await env.peer.waitFor(1, 10_000);
  t.deepEqual(received?.rcptTo, ['ann@example.net']);
  const parsed = await simpleParser(received?.data as Buffer);
  t.is(parsed.subject, 'Your refund');
  t.is(parsed.text?.trim(), 'It is on its way.');
  await eventually('delivered', () => messageStatus(env.ph, id) === 'delivered');
  const types = events(env.ph, id).map((e) => e.type);
  t.deepEqual(types.slice(0, 2), ['email.sent', 'email.delivered']);
  t.deepEqual(events(env.ph, id)[0]?.data.to, ['ann@example.net']);

  // Approving again answers the same; rejecting now is a conflict.
  t.is(
    (
      await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/approve`, {
        key: env.session,
      })
    ).status,
    202,
  );
  t.is(
    (await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/reject`, { key: env.session }))
      .status,
    409,
  );
  t.is(env.peer.messages.length, 1);
  t.is((await approvals(env)).body.data.length, 0);
  t.is((await approvals(env, '?status=approved')).body.data.length, 1);
});

test('a rejected agent send is never sent: status rejected, email.rejected with the note', async (t) => {
  const env = await startAgentEnv(t);
  const sent = await env.send();
  const [approval] = (await approvals(env)).body.data;
  const tooLong = await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/reject`, {
    key: env.session,
    body: { note: 'x'.repeat(501) },
  });
  t.is(tooLong.status, 400);
  t.is(tooLong.body.details[0].path, 'note');
  const rejected = await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/reject`, {
    key: env.session,
    body: { note: 'Wrong customer.' },
  });
  t.is(rejected.status, 204);
  t.is(messageStatus(env.ph, sent.body.id), 'rejected');
  t.is(
    (await env.ph.request('GET', `/v1/emails/${sent.body.id}`, { key: env.token })).body.status,
    'rejected',
  );
  const [event] = events(env.ph, sent.body.id);
  t.is(event?.type, 'email.rejected');
  t.is(event?.data.rejection.reason, 'rejected');
  t.is(event?.data.rejection.note, 'Wrong customer.');
  t.deepEqual(event?.data.to, ['ann@example.net']);
  t.is(
    (
      await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/approve`, {
        key: env.session,
      })
    ).status,
    409,
  );
  // Rejecting twice is fine; a reject without a body too.
  t.is(
    (await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/reject`, { key: env.session }))
      .status,
    204,
  );
  const view = await env.ph.request('GET', `/v1/dashboard/send-approvals/${approval.id}`, {
    key: env.session,
  });
  t.is(view.body.status, 'rejected');
  t.is(view.body.note, 'Wrong customer.');
  await sleep(500);
  t.is(env.peer.messages.length, 0);
});

test('a batch by an agent makes one approval per message, each decided on its own', async (t) => {
  const env = await startAgentEnv(t);
  const batch = await env.ph.request('POST', '/v1/emails/batch', {
    key: env.token,
    body: {
      emails: [
        { from: FROM, to: ['ann@example.net'], subject: 'One', text: '1' },
        { from: FROM, to: ['bob@example.net'], subject: 'Two', text: '2' },
      ],
    },
  });
  t.is(batch.status, 202);
  t.deepEqual(
    batch.body.data.map((item: { status: string }) => item.status),
    ['awaiting_approval', 'awaiting_approval'],
  );
  const listed = (await approvals(env)).body.data as { id: string; message: { subject: string } }[];
  t.deepEqual(listed.map((a) => a.message.subject).sort(), ['One', 'Two']);
  const two = listed.find((a) => a.message.subject === 'Two');
  const one = listed.find((a) => a.message.subject === 'One');
  t.is(
    (await env.ph.request('POST', `/v1/dashboard/send-approvals/${two?.id}/approve`, { key: env.session }))
      .status,
    202,
  );
  t.is(
    (await env.ph.request('POST', `/v1/dashboard/send-approvals/${one?.id}/reject`, { key: env.session }))
      .status,
    204,
  );
  const [received] = await env.peer.waitFor(1, 10_000);
  t.deepEqual(received?.rcptTo, ['bob@example.net']);
  await sleep(500);
  t.is(env.peer.messages.length, 1);
});

test('approval checks suppression again: a recipient suppressed meanwhile is a 422 and the send stays held', async (t) => {
  const env = await startAgentEnv(t);
  const sent = await env.send();
  const [approval] = (await approvals(env)).body.data;
  t.is(
    (
      await env.ph.request('POST', '/v1/suppressions', {
        body: { email: 'ann@example.net', reason: 'manual_block' },
      })
    ).status,
    201,
  );
  const refused = await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/approve`, {
    key: env.session,
  });
  t.is(refused.status, 422);
  t.regex(refused.body.error, /suppression list/);
  t.is(messageStatus(env.ph, sent.body.id), 'awaiting_approval');
  t.is((await approvals(env)).body.data[0].status, 'pending');
  t.deepEqual(events(env.ph, sent.body.id), []);
  // A send by the agent to a suppressed address is refused at once, as any send is.
  t.is((await env.send()).status, 422);
});

test('an approval left undecided expires: the message is rejected with reason expired', async (t) => {
  const env = await startAgentEnv(t, { approvals: { expire_after: '1s' } });
  const sent = await env.send();
  await eventually('expiry', () => messageStatus(env.ph, sent.body.id) === 'rejected', 5000);
  const [approval] = (await approvals(env, '?status=expired')).body.data;
  t.is(approval.status, 'expired');
  t.is(approval.decided_by, null);
  const [event] = events(env.ph, sent.body.id);
  t.is(event?.type, 'email.rejected');
  t.is(event?.data.rejection.reason, 'expired');
  t.is(
    (
      await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/approve`, {
        key: env.session,
      })
    ).status,
    409,
  );
});

test('a project can trust a client, or turn approval off; API keys are never held', async (t) => {
  const env = await startAgentEnv(t);
  t.is(
    (
      await env.ph.request('POST', '/v1/emails', {
        body: { from: FROM, to: ['kim@example.net'], subject: 'k', text: 'k' },
      })
    ).body.status,
    'queued',
  );
  const policy = await env.ph.request('GET', '/v1/dashboard/send-approvals/policy', { key: env.session });
  t.deepEqual(policy.body, { require_approval: true, trusted_clients: [] });

  const trust = await env.ph.request('PUT', '/v1/dashboard/send-approvals/policy', {
    key: env.session,
    body: { require_approval: true, trusted_clients: [env.agent.client.client_id] },
  });
  t.is(trust.status, 200);
  const trusted = await env.send({ to: ['ann@example.net'] });
  t.is(trusted.body.status, 'queued');

  await env.ph.request('PUT', '/v1/dashboard/send-approvals/policy', {
    key: env.session,
    body: { require_approval: false, trusted_clients: [] },
  });
  t.is((await env.send({ to: ['bob@example.net'] })).body.status, 'queued');
  await env.ph.request('PUT', '/v1/dashboard/send-approvals/policy', {
    key: env.session,
    body: { require_approval: true, trusted_clients: [] },
  });
  t.is((await env.send({ to: ['cy@example.net'] })).body.status, 'awaiting_approval');
  const messages = await env.peer.waitFor(3, 10_000);
  t.deepEqual(messages.map((m) => m.rcptTo[0]).sort(), [
    'ann@example.net',
    'bob@example.net',
    'kim@example.net',
  ]);
  t.is((await approvals(env)).body.data.length, 1);

  const bad = await env.ph.request('PUT', '/v1/dashboard/send-approvals/policy', {
    key: env.session,
    body: { require_approval: true, trusted_clients: ['someone'] },
  });
  t.is(bad.status, 400);
});

test('only roles that may send approve, and another project’s approvals are not found', async (t) => {
  const env = await startAgentEnv(t);
  await env.send();
  const [approval] = (await approvals(env)).body.data;
  const invited = await env.ph.request('POST', '/v1/dashboard/organization/members', {
    body: { email: 'ana@example.test', role: 'analyst' },
    key: env.session,
  });
  t.is(invited.status, 201);
  const analyst = await signIn(env.ph, 'ana@example.test');
  t.is((await env.ph.request('GET', '/v1/dashboard/send-approvals', { key: analyst })).status, 200);
  const refused = await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/approve`, {
    key: analyst,
  });
  t.is(refused.status, 403);
  t.regex(refused.body.error, /analyst/);

  const other = await env.ph.bootstrap('eve@example.test');
  const eve = await signIn(env.ph, 'eve@example.test');
  t.is(other.projectId !== env.ph.owner.projectId, true);
  t.is(
    (await env.ph.request('POST', `/v1/dashboard/send-approvals/${approval.id}/approve`, { key: eve }))
      .status,
    404,
  );
  t.is((await env.ph.request('GET', '/v1/dashboard/send-approvals', { key: eve })).body.data.length, 0);
});
