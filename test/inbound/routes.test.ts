/**
 * Inbound routes over HTTP and what they mean at RCPT TO: only an address routed on a verified
 * domain is accepted; everything else gets 550 5.1.1 before DATA (no backscatter).
 */
import test from 'ava';
import { createDomain } from '../domains/env.js';
import { createRoute, DOMAIN, startInboundEnv } from './env.js';
import { openSmtp } from './smtp-client.js';

test('routes are created on a verified domain, listed, refused when duplicated, and deleted', async (t) => {
  const { ph, domainId } = await startInboundEnv(t);
  const support = await ph.request('POST', '/v1/inbound/routes', {
    body: { domain_id: domainId, local_part: 'Support' },
  });
  t.is(support.status, 201);
  t.like(support.body, {
    domain_id: domainId,
    domain: DOMAIN,
    local_part: 'support',
    address: `support@${DOMAIN}`,
  });
  t.regex(support.body.id, /^rte_/);
  const catchAll = await ph.request('POST', '/v1/inbound/routes', { body: { domain_id: domainId } });
  t.is(catchAll.status, 201);
  t.like(catchAll.body, { local_part: null, address: `*@${DOMAIN}` });

  const duplicate = await ph.request('POST', '/v1/inbound/routes', {
    body: { domain_id: domainId, local_part: 'support' },
  });
  t.is(duplicate.status, 409);
  t.is(
    duplicate.body.error,
    `An inbound route for support@${DOMAIN} already exists; delete it first to replace it.`,
  );
  const duplicateCatchAll = await ph.request('POST', '/v1/inbound/routes', {
    body: { domain_id: domainId, local_part: null },
  });
  t.is(duplicateCatchAll.status, 409);

  const list = await ph.request('GET', '/v1/inbound/routes');
  t.is(list.status, 200);
  t.deepEqual(
    list.body.data.map((r: { address: string }) => r.address),
    [`support@${DOMAIN}`, `*@${DOMAIN}`],
  );
  t.is((await ph.request('DELETE', `/v1/inbound/routes/${support.body.id}`)).status, 204);
  t.is((await ph.request('DELETE', `/v1/inbound/routes/${support.body.id}`)).status, 404);
  t.is((await ph.request('GET', '/v1/inbound/routes')).body.data.length, 1);
});

test('a route needs a verified domain of the project and a valid local part', async (t) => {
  const { ph } = await startInboundEnv(t);
  const pending = await createDomain(ph, 'pending.example');
  const unverified = await ph.request('POST', '/v1/inbound/routes', { body: { domain_id: pending.id } });
  t.is(unverified.status, 403);
  t.regex(unverified.body.error, /pending\.example is not verified/);
  const unknown = await ph.request('POST', '/v1/inbound/routes', { body: { domain_id: 'dom_NOPE' } });
  t.is(unknown.status, 404);
  const other = await ph.bootstrap();
  const foreign = await ph.request('POST', '/v1/inbound/routes', {
    body: { domain_id: pending.id },
    key: other.apiKey,
  });
  t.is(foreign.status, 404, "another project's domain is not found");
  const badLocal = await ph.request('POST', '/v1/inbound/routes', {
    body: { domain_id: pending.id, local_part: 'a b@' },
  });
  t.is(badLocal.status, 400);
  t.is(badLocal.body.details[0].path, 'local_part');
  const extra = await ph.request('POST', '/v1/inbound/routes', {
    body: { domain_id: pending.id, forward_to: 'x' },
  });
  t.is(extra.status, 400);
  const readOnly = await ph.createKey(ph.owner.projectId, ['inbound:read']);
  t.is(
    (await ph.request('POST', '/v1/inbound/routes', { body: { domain_id: pending.id }, key: readOnly }))
      .status,
    403,
  );
  t.is((await ph.request('GET', '/v1/inbound/routes', { key: readOnly })).status, 200);
});

test('RCPT TO accepts routed addresses and refuses everything else with 550 5.1.1', async (t) => {
  const { ph, smtpPort, domainId } = await startInboundEnv(t);
  await createRoute(ph, domainId, 'support');
  const smtp = await openSmtp(smtpPort);
  t.teardown(() => smtp.end());
  t.is((await smtp.command('EHLO client.example')).code, 250);
  t.is((await smtp.command('MAIL FROM:<someone@elsewhere.example>')).code, 250);
  t.is((await smtp.command(`RCPT TO:<support@${DOMAIN}>`)).code, 250);
  t.is(
    (await smtp.command(`RCPT TO:<SUPPORT@${DOMAIN.toUpperCase()}>`)).code,
    250,
    'matched case-insensitively',
  );
  const unknownLocal = await smtp.command(`RCPT TO:<sales@${DOMAIN}>`);
  t.is(unknownLocal.code, 550);
  t.regex(unknownLocal.text, /^550 5\.1\.1 /);
  const unknownDomain = await smtp.command('RCPT TO:<support@other.example>');
  t.is(unknownDomain.code, 550);
  t.regex(unknownDomain.text, /^550 5\.1\.1 /);
  const forgedVerp = await smtp.command(
    `RCPT TO:<b+r01jd3q8z9v6w1r2t3y4u5i6o7p-aaaaaaaaaa@bounces.${DOMAIN}>`,
  );
  t.is(forgedVerp.code, 550, 'a bounce address whose tag does not verify is refused');
});

test('a catch-all route takes any local part; deleting it, or the domain failing verification, stops acceptance', async (t) => {
  const { ph, dns, smtpPort, domainId } = await startInboundEnv(t);
  const route = await createRoute(ph, domainId);
  const rcpt = async (address: string) => {
    const smtp = await openSmtp(smtpPort);
    try {
      await smtp.command('EHLO client.example');
      await smtp.command('MAIL FROM:<someone@elsewhere.example>');
      return (await smtp.command(`RCPT TO:<${address}>`)).code;
    } finally {
      smtp.end();
    }
  };
  t.is(await rcpt(`anything.at.all@${DOMAIN}`), 250);
  dns.clear(`${DOMAIN}`);
  dns.set(DOMAIN, 'TXT', ['v=spf1 -all']);
  const reverified = await ph.request('POST', `/v1/domains/${domainId}/verify`);
  t.is(reverified.body.status, 'failed');
  t.is(await rcpt(`anything@${DOMAIN}`), 550, 'a domain no longer verified receives nothing');
  t.is((await ph.request('DELETE', `/v1/inbound/routes/${route.id}`)).status, 204);
  t.is(await rcpt(`anything@${DOMAIN}`), 550);
});

test('the complaint address is accepted without a route', async (t) => {
  const { smtpPort } = await startInboundEnv(t, { smtp_in: { complaint_address: 'fbl@feedback.example' } });
  const smtp = await openSmtp(smtpPort);
  t.teardown(() => smtp.end());
  await smtp.command('EHLO isp.example');
  await smtp.command('MAIL FROM:<>');
  t.is((await smtp.command('RCPT TO:<FBL@feedback.example>')).code, 250);
});
