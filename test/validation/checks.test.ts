/**
 * What `POST /v1/validation` answers beyond DNS: syntax, disposable domains (packaged and the
 * operator's file), role accounts, typo suggestions, suppression, the rate limit and bad input.
 */
import test from 'ava';
import { mailDomain, startValidationEnv } from './helpers.js';

test('a malformed address gets a verdict with the syntax reason, and nothing is looked up', async (t) => {
  const env = await startValidationEnv(t);
  const label = 'a'.repeat(64);
  const res = await env.validate(`ann@${label}.test`);
  t.is(res.status, 200, res.text);
  t.is(res.body.verdict, 'undeliverable');
  t.is(res.body.normalized, null);
  t.is(res.body.checks.syntax.result, 'fail');
  t.regex(res.body.reason, /is 64 characters long; RFC 1035 §2\.3\.4 allows 63/);
  t.is(res.body.checks.domain.result, 'skipped');
  t.is(res.body.checks.suppression.result, 'skipped');
  t.is(env.dns.queries(), 0);
  const dots = await env.validate('ann..lee@example.test');
  t.regex(dots.body.reason, /two dots in a row/);
});

test('an email of 400 characters is a 400 naming the field', async (t) => {
  const env = await startValidationEnv(t);
  const res = await env.validate(`${'a'.repeat(390)}@example.test`);
  t.is(res.status, 400, res.text);
  t.is(res.body.details[0].path, 'email');
  t.regex(res.body.error, /longer than 254 characters/);
});

test('a missing email, an unknown field and a non-string are 400s', async (t) => {
  const env = await startValidationEnv(t);
  const missing = await env.ph.request('POST', '/v1/validation', { body: {} });
  t.is(missing.status, 400);
  t.is(missing.body.details[0].path, 'email');
  const extra = await env.ph.request('POST', '/v1/validation', { body: { email: 'a@b.test', smtp: true } });
  t.is(extra.status, 400);
  t.is(extra.body.details[0].path, 'smtp');
  const number = await env.ph.request('POST', '/v1/validation', { body: { email: 42 } });
  t.is(number.status, 400);
});

test('a key without validation:use is refused with 403', async (t) => {
  const env = await startValidationEnv(t);
  const key = await env.ph.createKey(env.ph.owner.projectId, ['emails:send']);
  const res = await env.validate('ann@example.test', key);
  t.is(res.status, 403);
  t.regex(res.body.error, /validation:use/);
  const allowed = await env.ph.createKey(env.ph.owner.projectId, ['validation:use']);
  t.is((await env.validate('ann@example.test', allowed)).status, 200);
});

test('a disposable domain, and a subdomain of one, are risky', async (t) => {
  const env = await startValidationEnv(t);
  mailDomain(env.dns, 'mailinator.com');
  mailDomain(env.dns, 'eu.mailinator.com');
  const res = await env.validate('ann@mailinator.com');
  t.is(res.body.verdict, 'risky', res.text);
  t.is(res.body.checks.disposable.result, 'warn');
  t.is(res.body.checks.disposable.listed, 'mailinator.com');
  const sub = await env.validate('ann@eu.mailinator.com');
  t.is(sub.body.verdict, 'risky');
  t.regex(sub.body.reason, /under mailinator\.com/);
});

test('the operator file adds disposable domains and takes packaged ones off the list', async (t) => {
  const env = await startValidationEnv(t, {
    disposableFile: '# our additions\nburner.test\n!10minutemail.com  # a customer uses it\nnot a domain\n',
  });
  mailDomain(env.dns, 'burner.test');
  mailDomain(env.dns, '10minutemail.com');
  mailDomain(env.dns, 'guerrillamail.com');
  const added = await env.validate('ann@burner.test');
  t.is(added.body.verdict, 'risky', added.text);
  t.is(added.body.checks.disposable.listed, 'burner.test');
  const removed = await env.validate('ann@10minutemail.com');
  t.is(removed.body.checks.disposable.result, 'pass', removed.text);
  t.is(removed.body.verdict, 'deliverable');
  const packaged = await env.validate('ann@guerrillamail.com');
  t.is(packaged.body.checks.disposable.result, 'warn');
});

test('a role account is risky', async (t) => {
  const env = await startValidationEnv(t);
  mailDomain(env.dns, 'acme.test');
  for (const local of ['admin', 'Postmaster', 'sales+eu']) {
    const res = await env.validate(`${local}@acme.test`);
    t.is(res.body.verdict, 'risky', res.text);
    t.is(res.body.checks.role_account.result, 'warn');
  }
  t.is((await env.validate('ann@acme.test')).body.checks.role_account.result, 'pass');
});

test('a misspelt provider domain is suggested: risky when it takes mail, undeliverable when it does not', async (t) => {
  const env = await startValidationEnv(t);
  mailDomain(env.dns, 'gmial.com');
  const risky = await env.validate('Ann@gmial.com');
  t.is(risky.body.verdict, 'risky', risky.text);
  t.is(risky.body.suggestion, 'Ann@gmail.com');
  t.is(risky.body.checks.typo.suggestion, 'gmail.com');
  t.regex(risky.body.reason, /gmial\.com looks like a typo of gmail\.com; did you mean Ann@gmail\.com\?/);
  const gone = await env.validate('ann@hotmial.com');
  t.is(gone.body.verdict, 'undeliverable', gone.text);
  t.is(gone.body.suggestion, 'ann@hotmail.com');
  t.regex(gone.body.reason, /did you mean ann@hotmail\.com\?/);
  mailDomain(env.dns, 'mac.com');
  t.is((await env.validate('ann@mac.com')).body.suggestion, null, 'a provider domain is never a typo');
});

test('a suppressed address is undeliverable at once, even when its checks come from the cache', async (t) => {
  const env = await startValidationEnv(t);
  mailDomain(env.dns, 'example.test');
  t.is((await env.validate('kim@example.test')).body.verdict, 'deliverable');
  const add = await env.ph.request('POST', '/v1/suppressions', {
    body: { email: 'KIM@example.test', reason: 'hard_bounce' },
  });
  t.is(add.status, 201, add.text);
  const res = await env.validate('kim@example.test');
  t.true(res.body.cached);
  t.is(res.body.verdict, 'undeliverable');
  t.is(res.body.checks.suppression.result, 'fail');
  t.is(res.body.checks.suppression.suppression_reason, 'hard_bounce');
  t.regex(res.body.reason, /suppression list \(hard bounce\)/);
  // A test key asks its own (test) list, as sends with it do.
  const testKey = await env.ph.createKey(env.ph.owner.projectId, ['validation:use'], 'test');
  t.is((await env.validate('kim@example.test', testKey)).body.verdict, 'deliverable');
  // Another project does not share the list.
  const other = await env.ph.bootstrap();
  const theirs = await env.validate('kim@example.test', other.apiKey);
  t.is(theirs.body.verdict, 'deliverable');
});

test('validations are rate limited per project with Retry-After', async (t) => {
  const env = await startValidationEnv(t, { config: { validation: { requests_per_minute: 3 } } });
  mailDomain(env.dns, 'example.test');
  for (let i = 0; i < 3; i++) t.is((await env.validate(`a${i}@example.test`)).status, 200);
  const refused = await env.validate('a4@example.test');
  t.is(refused.status, 429, refused.text);
  t.truthy(refused.headers.get('retry-after'));
  t.regex(refused.body.error, /3 validations per minute/);
  const other = await env.ph.bootstrap();
  t.is((await env.validate('a5@example.test', other.apiKey)).status, 200);
});
