import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { createDomain, eventsOf, MX_HOST, record, SENDING_IP, startDomainEnv, WITH_TRACKING } from './env.js';

test('POST /v1/domains returns 201 with the DNS records to publish, each pending', async (t) => {
  const { ph } = await startDomainEnv(t, WITH_TRACKING);
  const res = await ph.request('POST', '/v1/domains', { body: { name: 'Mail.Example.COM.' } });
  t.is(res.status, 201);
  const domain = res.body;
  t.regex(domain.id, /^dom_/);
  t.like(domain, { name: 'mail.example.com', region: 'eu', status: 'pending', verified_at: null });
  t.deepEqual(
    domain.records.map(
      (r: { purpose: string; type: string; host: string }) => `${r.purpose} ${r.type} ${r.host}`,
    ),
    [
      'spf TXT mail.example.com',
      `dkim TXT ${record(domain, 'dkim').host}`,
      'dmarc TXT _dmarc.mail.example.com',
      'return_path MX bounces.mail.example.com',
      'return_path TXT bounces.mail.example.com',
      'tracking A track.mail.example.com',
    ],
  );
  t.true(domain.records.every((r: { status: string }) => r.status === 'pending'));
  t.is(record(domain, 'spf').value, `v=spf1 ip4:${SENDING_IP} ~all`);
  t.is(record(domain, 'return_path', 'MX').value, MX_HOST);
  t.regex(record(domain, 'dkim').host, /^ph\d{6}[a-z0-9]{4}\._domainkey\.mail\.example\.com$/);
  t.is(record(domain, 'dkim').required, true);
  t.is(record(domain, 'dmarc').required, false);
});

test('the DKIM TXT value is ready to paste and split into strings of at most 255 characters', async (t) => {
  const { ph } = await startDomainEnv(t);
  const dkim = record(await createDomain(ph, 'example.com'), 'dkim');
  t.regex(dkim.value, /^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
  t.true(dkim.value.length > 255, 'a 2048-bit key does not fit one string');
  const strings = dkim.value_strings as string[];
  t.true(strings.length >= 2);
  t.true(strings.every((s) => s.length <= 255 && s.length > 0));
  t.is(strings.join(''), dkim.value);
});

test('domain names are normalized: lower case, punycode, no trailing dot', async (t) => {
  const ph = await startPosthorn(t);
  const cases: Array<[string, string]> = [
    ['EXAMPLE.org', 'example.org'],
    ['bücher.example.', 'xn--bcher-kva.example'],
    ['  mail.Example.net  ', 'mail.example.net'],
    ['Mail.Acme.CO.uk', 'mail.acme.co.uk'],
  ];
  for (const [input, expected] of cases) {
    const res = await ph.request('POST', '/v1/domains', { body: { name: input } });
    t.is(res.status, 201, input);
    t.is(res.body.name, expected);
  }
});

test('invalid domain requests are refused with 400 naming the field', async (t) => {
  const ph = await startPosthorn(t);
  const cases: Array<[unknown, RegExp, string]> = [
    [{}, /name/, 'name'],
    [{ name: '' }, /name/, 'name'],
    [{ name: 'localhost' }, /name: "localhost" needs at least two labels/, 'name'],
    [{ name: '192.0.2.1' }, /name: "192.0.2.1" is an IP address/, 'name'],
    [{ name: '[2001:db8::1]' }, /IP address/, 'name'],
    [{ name: 'bad_label.example.com' }, /invalid label "bad_label"/, 'name'],
    [{ name: '-x.example.com' }, /invalid label/, 'name'],
    [{ name: 'https://example.com/path' }, /not a host name/, 'name'],
    [{ name: 'example.123' }, /all-numeric/, 'name'],
    [{ name: 'co.uk' }, /name: "co.uk" is a public suffix/, 'name'],
    [{ name: 'Com.AU.' }, /is a public suffix/, 'name'],
    [{ name: `${'a'.repeat(64)}.example.com` }, /invalid label/, 'name'],
    [{ name: 'example.com', region: 'EU West' }, /region/, 'region'],
    [{ name: 'example.com', dkim: 'mine' }, /dkim/, 'dkim'],
  ];
  for (const [body, message, path] of cases) {
    const res = await ph.request('POST', '/v1/domains', { body });
    t.is(res.status, 400, JSON.stringify(body));
    t.regex(res.body.error, message, JSON.stringify(body));
    t.is(res.body.details?.[0]?.path, path);
  }
});

test('a domain already in the project is refused with 409, in any spelling; another project may add it', async (t) => {
  const ph = await startPosthorn(t);
  await createDomain(ph, 'example.com');
  const again = await ph.request('POST', '/v1/domains', { body: { name: 'Example.COM.' } });
  t.is(again.status, 409);
  t.regex(again.body.error, /name: example\.com is already a domain of this project/);
  const other = await ph.bootstrap();
  t.is(
    (await ph.request('POST', '/v1/domains', { key: other.apiKey, body: { name: 'example.com' } })).status,
    201,
  );
});

test('creating a domain appends domain.created; the region defaults to eu and may be set', async (t) => {
  const ph = await startPosthorn(t);
  const res = await ph.request('POST', '/v1/domains', { body: { name: 'example.com', region: 'us' } });
  t.is(res.body.region, 'us');
  const events = await eventsOf(ph, ph.owner.projectId);
  t.is(events.length, 1);
  t.like(events[0], {
    type: 'domain.created',
    data: { id: res.body.id, name: 'example.com', status: 'pending' },
  });
  t.false(JSON.stringify(events).includes('p=MII'), 'event payloads carry statuses, not key material');
});

test('with dkim.ed25519 a second DKIM key is published and offered for signing, but only RSA is required', async (t) => {
  const { ph } = await startDomainEnv(t, { dkim: { ed25519: true } });
  const domain = await createDomain(ph, 'example.com');
  const dkim = domain.records.filter((r) => r.purpose === 'dkim');
  t.is(dkim.length, 2);
  const ed = dkim.find((r) => r.value.includes('k=ed25519'));
  t.truthy(ed);
  t.false(ed?.required);
  t.regex(ed?.value ?? '', /^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
  const keys = await ph.server.services.domains.signingKeys(ph.owner.projectId, 'example.com');
  t.truthy(keys?.ed25519);
  t.is(ed?.host, `${keys?.ed25519?.selector}._domainkey.example.com`);
});

test('names that become an IP address, a percent-decoded name or invalid punycode are refused with 400', async (t) => {
  const ph = await startPosthorn(t);
  const cases: Array<[string, RegExp]> = [
    ['１２７.０.０.１', /is an IP address/],
    ['1.0x7f', /is an IP address/],
    ['0x7f.0.0.1', /is an IP address|all-numeric top-level label/],
    ['exam%70le.com', /contains "%"/],
    ['xn--zz.com', /invalid internationalized label "xn--zz"/],
    ['mail.xn--abc.example', /invalid internationalized label "xn--abc"/],
  ];
  for (const [name, message] of cases) {
    const res = await ph.request('POST', '/v1/domains', { body: { name } });
    t.is(res.status, 400, name);
    t.regex(res.body.error, message, name);
    t.is(res.body.details?.[0]?.path, 'name');
  }
  t.is((await ph.request('GET', '/v1/domains')).body.data.length, 0);
});

test('a name is refused when its DKIM record host would pass DNS’s 253 characters', async (t) => {
  const ph = await startPosthorn(t);
  // A 12-character selector (ed25519's is 13) + "._domainkey." leaves 228 characters for the name.
  const name = (length: number) => {
    const head = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.`;
    return `${head}${'d'.repeat(length - head.length - '.com'.length)}.com`;
  };
  const long = await ph.request('POST', '/v1/domains', { body: { name: name(229) } });
  t.is(long.status, 400);
  t.regex(long.body.error, /is longer than 228 characters .*_domainkey/);
  const fits = await ph.request('POST', '/v1/domains', { body: { name: name(228) } });
  t.is(fits.status, 201);
  for (const r of fits.body.records as Array<{ host: string }>) t.true(r.host.length <= 253, r.host);
});
