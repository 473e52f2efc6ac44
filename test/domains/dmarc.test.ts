import test from 'ava';
import { createDomain, publish, record, startDomainEnv } from './env.js';

test('a subdomain without its own DMARC record is covered by its organizational domain’s, with sp= applied', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'mail.example.co.uk');
  publish(dns, domain, ['dmarc']);
  const none = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.like(record(none.body, 'dmarc'), { status: 'missing' });
  t.regex(
    record(none.body, 'dmarc').reason ?? '',
    /No DMARC record at _dmarc\.mail\.example\.co\.uk nor at _dmarc\.example\.co\.uk/,
  );

  dns.set('_dmarc.example.co.uk', 'TXT', ['v=DMARC1; p=quarantine; sp=reject; rua=mailto:d@example.co.uk']);
  const inherited = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(inherited.body.status, 'verified');
  t.like(record(inherited.body, 'dmarc'), {
    status: 'verified',
    policy: 'reject',
    inherited_from: 'example.co.uk',
  });
  t.like(record((await ph.request('GET', `/v1/domains/${domain.id}`)).body, 'dmarc'), {
    inherited_from: 'example.co.uk',
  });

  dns.set('_dmarc.example.co.uk', 'TXT', ['v=DMARC1; p=quarantine']);
  const withoutSp = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.like(record(withoutSp.body, 'dmarc'), { status: 'verified', policy: 'quarantine' });

  dns.set('_dmarc.mail.example.co.uk', 'TXT', ['v=DMARC1; p=none']);
  const own = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  const dmarc = record(own.body, 'dmarc');
  t.like(dmarc, { status: 'verified', policy: 'none' });
  t.is(dmarc.inherited_from, undefined, 'the domain’s own record wins');
});

test('a registered domain without a DMARC record has no parent to inherit from', async (t) => {
  const { ph, dns } = await startDomainEnv(t);
  const domain = await createDomain(ph, 'example.com');
  publish(dns, domain, ['dmarc']);
  dns.set('_dmarc.com', 'TXT', ['v=DMARC1; p=reject']);
  const res = await ph.request('POST', `/v1/domains/${domain.id}/verify`);
  t.is(record(res.body, 'dmarc').status, 'missing');
  t.is(dns.queries('_dmarc.com', 'TXT'), 0);
});
