/**
 * The domain check against a real DNS server on loopback: MX, implicit A/AAAA, null MX (RFC 7505),
 * no mail host, a name that does not exist, and a server that never answers.
 */
import test from 'ava';
import { mailDomain, startValidationEnv } from './helpers.js';

test('an address whose domain has an MX with an address is deliverable, and the result says where mail goes', async (t) => {
  const env = await startValidationEnv(t);
  mailDomain(env.dns, 'example.test');
  const res = await env.validate('Ann.Lee@Example.test');
  t.is(res.status, 200, res.text);
  t.is(res.body.verdict, 'deliverable');
  t.is(res.body.email, 'Ann.Lee@Example.test');
  t.is(res.body.normalized, 'ann.lee@example.test');
  t.is(res.body.checks.syntax.result, 'pass');
  t.is(res.body.checks.domain.result, 'pass');
  t.deepEqual(res.body.checks.domain.mx, ['mx.example.test']);
  t.false(res.body.checks.domain.implicit);
  t.is(res.body.checks.suppression.result, 'pass');
  t.is(res.body.suggestion, null);
  t.false(res.body.cached);
  t.is(res.headers.get('ratelimit-limit'), '600');
});

test('a null MX (RFC 7505) is undeliverable', async (t) => {
  const env = await startValidationEnv(t);
  env.dns.set('nomail.test', 'MX', [{ preference: 0, exchange: '.' }]);
  env.dns.set('nomail.test', 'A', ['127.0.0.1']);
  const res = await env.validate('ann@nomail.test');
  t.is(res.status, 200, res.text);
  t.is(res.body.verdict, 'undeliverable');
  t.is(res.body.checks.domain.result, 'fail');
  t.true(res.body.checks.domain.null_mx);
  t.regex(res.body.reason, /null MX \(RFC 7505\)/);
});

test('a domain without MX records receives mail at its own address (implicit MX)', async (t) => {
  const env = await startValidationEnv(t);
  env.dns.set('implicit.test', 'A', ['127.0.0.1']);
  const res = await env.validate('ann@implicit.test');
  t.is(res.body.verdict, 'deliverable', res.text);
  t.true(res.body.checks.domain.implicit);
  t.deepEqual(res.body.checks.domain.mx, ['implicit.test']);
});

test('a domain with neither MX nor an address, and one that does not exist, are undeliverable', async (t) => {
  const env = await startValidationEnv(t);
  env.dns.set('txt-only.test', 'TXT', ['v=spf1 -all']);
  const noHost = await env.validate('ann@txt-only.test');
  t.is(noHost.body.verdict, 'undeliverable', noHost.text);
  t.regex(noHost.body.reason, /no MX records and no A or AAAA record/);
  const missing = await env.validate('ann@missing.test');
  t.is(missing.body.verdict, 'undeliverable', missing.text);
  t.regex(missing.body.reason, /does not exist/);
});

test('an MX host without an address is undeliverable', async (t) => {
  const env = await startValidationEnv(t);
  env.dns.set('dangling.test', 'MX', [{ preference: 10, exchange: 'mx.dangling.test' }]);
  const res = await env.validate('ann@dangling.test');
  t.is(res.body.verdict, 'undeliverable', res.text);
  t.regex(res.body.reason, /no MX host of dangling\.test has an address/);
});

test('a DNS server that never answers makes the verdict unknown, and that is not cached', async (t) => {
  const env = await startValidationEnv(t, { config: { validation: { dns_timeout_ms: 500 } } });
  env.dns.fail('slow.test', 'timeout');
  const started = Date.now();
  const res = await env.validate('ann@slow.test');
  t.is(res.status, 200, res.text);
  t.is(res.body.verdict, 'unknown');
  t.is(res.body.checks.domain.result, 'unknown');
  t.regex(res.body.reason, /DNS did not answer/);
  t.true(Date.now() - started < 4000, 'one try within validation.dns_timeout_ms');
  const again = await env.validate('ann@slow.test');
  t.false(again.body.cached);
});

test('SERVFAIL is unknown, never undeliverable', async (t) => {
  const env = await startValidationEnv(t);
  env.dns.fail('broken.test', 'servfail');
  const res = await env.validate('ann@broken.test');
  t.is(res.body.verdict, 'unknown', res.text);
});

test('a second validation of an address is answered from the cache without asking DNS', async (t) => {
  const env = await startValidationEnv(t);
  mailDomain(env.dns, 'cached.test');
  const first = await env.validate('bob@cached.test');
  t.false(first.body.cached);
  const queries = env.dns.queries();
  const second = await env.validate('bob@cached.test');
  t.true(second.body.cached);
  t.is(second.body.verdict, 'deliverable');
  t.is(second.body.checked_at, first.body.checked_at);
  t.is(env.dns.queries(), queries);
});

test('with cache_ttl 0s nothing is cached', async (t) => {
  const env = await startValidationEnv(t, { config: { validation: { cache_ttl: '0s' } } });
  mailDomain(env.dns, 'nocache.test');
  await env.validate('bob@nocache.test');
  const again = await env.validate('bob@nocache.test');
  t.false(again.body.cached);
});

test('an internationalised domain is checked in its A-label form', async (t) => {
  const env = await startValidationEnv(t);
  mailDomain(env.dns, 'xn--bcher-kva.test');
  const res = await env.validate('Jürgen@Bücher.test');
  t.is(res.body.verdict, 'deliverable', res.text);
  t.is(res.body.normalized, 'jürgen@xn--bcher-kva.test');
  t.deepEqual(res.body.checks.domain.mx, ['mx.xn--bcher-kva.test']);
});
