import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { count, email, SANDBOX, verifiedDomain } from './helpers.js';

test('a send without a valid key is refused with 401', async (t) => {
  const ph = await startPosthorn(t);
  t.is((await ph.request('POST', '/v1/emails', { body: email(), key: null })).status, 401);
  t.is(
    (await ph.request('POST', '/v1/emails', { body: email(), key: `ph_live_${'x'.repeat(32)}` })).status,
    401,
  );
});

test('a key without emails:send is refused with 403 naming the scope', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  const key = await ph.createKey(ph.owner.projectId, ['emails:read']);
  const res = await ph.request('POST', '/v1/emails', { body: email(), key });
  t.is(res.status, 403);
  t.regex(res.body.error, /emails:send/);
  const batch = await ph.request('POST', '/v1/emails/batch', { body: { emails: [email()] }, key });
  t.is(batch.status, 403);
});

test('a suspended project may not send (403), even from a verified domain', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  await ph.server.services.projects.setStatus(ph.owner.projectId, 'suspended', 'test');
  const res = await ph.request('POST', '/v1/emails', { body: email() });
  t.is(res.status, 403);
  t.regex(res.body.error, /suspended/);
  const batch = await ph.request('POST', '/v1/emails/batch', { body: { emails: [email()] } });
  t.is(batch.status, 403);
  t.is(await count(ph, 'messages'), 0);
});

test('a From domain that is not verified for the project is refused with 403 saying why', async (t) => {
  const ph = await startPosthorn(t);
  const other = await ph.bootstrap();
  await verifiedDomain(ph, 'acme.test', other.projectId); // verified, but by another project
  const res = await ph.request('POST', '/v1/emails', { body: email() });
  t.is(res.status, 403);
  t.regex(res.body.error, /acme\.test is not a verified domain of this project/);
});

test('a project an operator set back to the sandbox may send only from the sandbox sender, even with a verified domain (old: 202)', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  t.is((await ph.request('POST', '/v1/emails', { body: email() })).status, 202);
  await ph.server.services.projects.setStatus(ph.owner.projectId, 'sandbox', 'test');
  const res = await ph.request('POST', '/v1/emails', { body: email() });
  t.is(res.status, 403);
  t.regex(
    res.body.error,
    /project is in the sandbox: only the shared sandbox sender sandbox@posthorn\.test may send/,
  );
  const toMember = await ph.request('POST', '/v1/emails', {
    body: email({ from: SANDBOX, to: ['owner@example.test'] }),
  });
  t.is(toMember.status, 202, 'the sandbox sender still reaches members');
});

test('the sandbox sender reaches organization members only', async (t) => {
  const ph = await startPosthorn(t);
  const toMember = await ph.request('POST', '/v1/emails', {
    body: email({ from: `Sandbox <${SANDBOX}>`, to: ['Owner <OWNER@example.test>'] }),
  });
  t.is(toMember.status, 202, toMember.text);
  const toStranger = await ph.request('POST', '/v1/emails', {
    body: email({ from: SANDBOX, to: ['owner@example.test'], bcc: ['stranger@example.com'] }),
  });
  t.is(toStranger.status, 403);
  t.regex(toStranger.body.error, /sandbox sender.*members.*stranger@example\.com is not one/);
});

test('a suppressed recipient is refused with 422 and exactly {"error"} naming the address', async (t) => {
  const ph = await startPosthorn(t);
  await verifiedDomain(ph);
  await ph.server.services.suppressions.add({
    projectId: ph.owner.projectId,
    email: 'gone@example.com',
    reason: 'hard_bounce',
  });
  const res = await ph.request('POST', '/v1/emails', {
    body: email({ to: ['ann@example.com'], cc: ['Gone <GONE@Example.com>'] }),
  });
  t.is(res.status, 422);
  t.deepEqual(Object.keys(res.body), ['error']);
  t.regex(res.body.error, /GONE@example\.com is on the suppression list/);
  t.is(await count(ph, 'messages'), 0);
});

test('the per-key rate limit answers 429 with Retry-After and RateLimit headers', async (t) => {
  const ph = await startPosthorn(t, { limits: { sends_per_minute_per_key: 2 } });
  await verifiedDomain(ph);
  const first = await ph.request('POST', '/v1/emails', { body: email({ to: ['a@example.com'] }) });
  t.is(first.status, 202);
  t.is(first.headers.get('ratelimit-limit'), '2');
  t.is(first.headers.get('ratelimit-remaining'), '1');
  t.regex(first.headers.get('ratelimit-policy') ?? '', /^"sends-per-key";q=2;w=60$/);
  await ph.request('POST', '/v1/emails', { body: email({ to: ['b@example.com'] }) });
  const third = await ph.request('POST', '/v1/emails', { body: email({ to: ['c@example.com'] }) });
  if (third.status === 202) return t.pass('the minute rolled over between requests'); // rare
  t.is(third.status, 429);
  t.regex(third.body.error, /2 sends per minute/);
  const retry = Number(third.headers.get('retry-after'));
  t.true(retry >= 1 && retry <= 60);
  t.is(third.headers.get('ratelimit-remaining'), '0');
  t.regex(third.headers.get('ratelimit') ?? '', /^"sends-per-key";r=0;t=\d+$/);
  t.is(await count(ph, 'messages'), 2);
});

test('the per-recipient throttle answers 429 naming the address', async (t) => {
  const ph = await startPosthorn(t, { limits: { sends_per_hour_per_recipient: 1 } });
  await verifiedDomain(ph);
  t.is((await ph.request('POST', '/v1/emails', { body: email({ to: ['ann@example.com'] }) })).status, 202);
  const again = await ph.request('POST', '/v1/emails', {
    body: email({ to: ['bob@example.com', 'ANN@example.com'] }),
  });
  t.is(again.status, 429);
  t.regex(again.body.error, /ann@example\.com already received 1 messages/);
  t.truthy(again.headers.get('retry-after'));
  t.regex(again.headers.get('ratelimit-policy') ?? '', /"sends-per-recipient";q=1;w=3600/);
  // bob's slot was not taken by the refused send
  t.is((await ph.request('POST', '/v1/emails', { body: email({ to: ['bob@example.com'] }) })).status, 202);
});

test('the daily quota counts messages already stored today', async (t) => {
  const ph = await startPosthorn(t, { limits: { daily_quota: 2 } });
  await verifiedDomain(ph);
  t.is((await ph.request('POST', '/v1/emails', { body: email({ to: ['a@example.com'] }) })).status, 202);
  t.is((await ph.request('POST', '/v1/emails', { body: email({ to: ['b@example.com'] }) })).status, 202);
  const over = await ph.request('POST', '/v1/emails', { body: email({ to: ['c@example.com'] }) });
  t.is(over.status, 429);
  t.regex(over.body.error, /daily quota of 2/);
  t.truthy(over.headers.get('retry-after'));
});

test('test-key sends do not use the daily quota; live sends still do, and the count a restart reads is of live sends', async (t) => {
  const ph = await startPosthorn(t, { limits: { daily_quota: 2 } });
  await verifiedDomain(ph);
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  // Test sends first: stored today, yet the live count the quota starts from leaves them out.
  for (const to of ['a@example.com', 'b@example.com', 'c@example.com']) {
    const res = await ph.request('POST', '/v1/emails', { key: testKey, body: email({ to: [to] }) });
    t.is(res.status, 202, res.text);
  }
  t.is((await ph.request('POST', '/v1/emails', { body: email({ to: ['d@example.com'] }) })).status, 202);
  t.is((await ph.request('POST', '/v1/emails', { body: email({ to: ['e@example.com'] }) })).status, 202);
  const over = await ph.request('POST', '/v1/emails', { body: email({ to: ['f@example.com'] }) });
  t.is(over.status, 429);
  t.regex(over.body.error, /daily quota of 2/);
  // A quota reached by live sends does not stop the sandbox.
  const sandboxed = await ph.request('POST', '/v1/emails', {
    key: testKey,
    body: email({ to: ['g@example.com'] }),
  });
  t.is(sandboxed.status, 202, sandboxed.text);
  t.is(await count(ph, 'messages', "mode = 'test'"), 4);
  t.is(await count(ph, 'messages', "mode = 'live'"), 2);
});

test('a test key keeps its per-minute rate limit', async (t) => {
  const ph = await startPosthorn(t, { limits: { sends_per_minute_per_key: 2, daily_quota: 100 } });
  await verifiedDomain(ph);
  const testKey = await ph.createKey(ph.owner.projectId, ['full_access'], 'test');
  const send = (to: string) => ph.request('POST', '/v1/emails', { key: testKey, body: email({ to: [to] }) });
  const first = await send('a@example.com');
  t.is(first.status, 202);
  t.is(first.headers.get('ratelimit-remaining'), '1');
  await send('b@example.com');
  const third = await send('c@example.com');
  if (third.status === 202) return t.pass('the minute rolled over between requests'); // rare
  t.is(third.status, 429);
  t.regex(third.body.error, /2 sends per minute/);
});

test('checks run in order: suspended before sender, sender before suppression, suppression before limits', async (t) => {
  const ph = await startPosthorn(t, { limits: { sends_per_minute_per_key: 1 } });
  await ph.server.services.suppressions.add({
    projectId: ph.owner.projectId,
    email: 'gone@example.com',
    reason: 'unsubscribe',
  });
  const body = email({ to: ['gone@example.com'] });
  t.is(
    (await ph.request('POST', '/v1/emails', { body })).status,
    403,
    'unverified sender before suppression',
  );
  await verifiedDomain(ph);
  t.is((await ph.request('POST', '/v1/emails', { body })).status, 422);
  t.is((await ph.request('POST', '/v1/emails', { body })).status, 422, 'refusals do not use the rate limit');
  await ph.server.services.projects.setStatus(ph.owner.projectId, 'suspended', 'test');
  t.is((await ph.request('POST', '/v1/emails', { body })).status, 403);
});
