import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { query } from '../helpers/sql.js';

// Any key route answers 401 before routing reaches a handler; the unknown-route 404 proves auth passed.
async function authStatus(ph: Awaited<ReturnType<typeof startPosthorn>>, header?: string) {
  return ph.request('GET', '/openapi.json', { key: null, headers: header ? { authorization: header } : {} });
}

test('a request without a key is refused with 401 saying how to authenticate', async (t) => {
  const ph = await startPosthorn(t);
  const res = await ph.server.services.keys.authenticate(undefined).catch((error: Error) => error);
  t.regex(String((res as Error).message), /Authorization: Bearer/);
  t.is((await authStatus(ph)).status, 200, 'public routes need no key');
});

test('unknown, malformed, revoked and expired keys are refused with 401', async (t) => {
  const ph = await startPosthorn(t);
  const keys = ph.server.services.keys;
  const reasons: Array<[string | undefined, RegExp]> = [
    ['Basic abc', /Malformed/],
    ['Bearer ph_live_notakey', /Invalid API key/],
    [`Bearer ph_live_${'A'.repeat(32)}`, /Invalid API key/],
  ];
  for (const [header, reason] of reasons) {
    const error = await t.throwsAsync(keys.authenticate(header));
    t.regex(error.message, reason);
    t.is((error as { status?: number }).status, 401);
  }
  const revoked = await keys.create(
    { projectId: ph.owner.projectId, scopes: ['emails:send'], mode: 'live' },
    'test',
  );
  await keys.revoke(revoked.view.id, 'test');
  const revokedError = await t.throwsAsync(keys.authenticate(`Bearer ${revoked.key}`));
  t.regex(revokedError.message, /revoked/);
  const expired = await keys.create(
    { projectId: ph.owner.projectId, scopes: ['emails:send'], mode: 'live', expiresInMs: 1 },
    'test',
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
  const expiredError = await t.throwsAsync(keys.authenticate(`Bearer ${expired.key}`));
  t.regex(expiredError.message, /expired/);
});

test('keys are stored only as SHA-256 hashes with a four-character hint', async (t) => {
  const ph = await startPosthorn(t);
  const created = await ph.server.services.keys.create(
    { projectId: ph.owner.projectId, scopes: ['emails:send'], mode: 'test' },
    'test',
  );
  t.regex(created.key, /^ph_test_[0-9A-Za-z]{32}$/);
  const [row] = await query(ph.server.kernel.store, 'select * from api_keys where id = ?', created.view.id);
  if (row === undefined) return t.fail('the key is stored');
  t.false(JSON.stringify(row).includes(created.key));
  t.is(row.key_hint, created.key.slice(-4));
  t.is((row.key_hash as string).length, 64);
});

test('last use is recorded in memory and flushed in a batch', async (t) => {
  const ph = await startPosthorn(t);
  const keys = ph.server.services.keys;
  await keys.authenticate(`Bearer ${ph.owner.apiKey}`);
  const [before] = await query<{ last_used_at: number | null }>(
    ph.server.kernel.store,
    'select last_used_at from api_keys where project_id = ?',
    ph.owner.projectId,
  );
  t.is(before?.last_used_at, null, 'authentication does not write');
  t.truthy((await keys.list(ph.owner.projectId))[0]?.last_used_at, 'but the listing already shows it');
  await keys.flushLastUsed();
  const [after] = await query<{ last_used_at: number | null }>(
    ph.server.kernel.store,
    'select last_used_at from api_keys where project_id = ?',
    ph.owner.projectId,
  );
  t.truthy(after?.last_used_at);
});

test('creating a key with an unknown scope is refused', async (t) => {
  const ph = await startPosthorn(t);
  const error = await t.throwsAsync(
    ph.server.services.keys.create(
      { projectId: ph.owner.projectId, scopes: ['emails:fly'], mode: 'live' },
      'test',
    ),
  );
  t.regex(error.message, /emails:fly/);
});

test('the key service refuses a zero or over-ten-year lifetime with a 400, whoever calls it', async (t) => {
  const ph = await startPosthorn(t);
  const keys = ph.server.services.keys;
  const base = { projectId: ph.owner.projectId, scopes: ['emails:send'], mode: 'live' as const };
  for (const expiresInMs of [0, -1, 11 * 365 * 86_400_000, 200_000_000 * 86_400_000]) {
    const error = await t.throwsAsync(keys.create({ ...base, expiresInMs }, 'test'));
    t.is((error as { status?: number }).status, 400, String(expiresInMs));
  }
  t.is((await keys.list(ph.owner.projectId)).length, 1, 'nothing was inserted');
});
