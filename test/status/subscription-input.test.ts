import test from 'ava';
import { startPosthorn } from '../helpers/server.js';
import { query } from '../helpers/sql.js';

const count = async (ph: Awaited<ReturnType<typeof startPosthorn>>) => {
  const [row] = await query<{ n: number }>(
    ph.server.kernel.store,
    'select count(*) as n from status_subscriptions',
  );
  return Number(row?.n);
};

test('bad subscriptions are refused with the right 400 and nothing is stored', async (t) => {
  const ph = await startPosthorn(t);
  const post = (body: unknown) => ph.request('POST', '/v1/status/subscriptions', { key: null, body });
  const channel = await post({ channel: 'sms', destination: '+15550100' });
  t.is(channel.status, 400);
  t.is(channel.body.details[0].path, 'channel');
  const address = await post({ channel: 'email', destination: 'not-an-address' });
  t.is(address.status, 400);
  t.deepEqual(address.body.details, [{ path: 'destination', message: 'is not an email address' }]);
  const plain = await post({ channel: 'webhook', destination: 'http://hooks.example.com/status' });
  t.is(plain.status, 400);
  t.regex(plain.body.error, /destination: must be https:\/\//);
  for (const target of [
    'https://10.1.2.3/hook',
    'https://127.0.0.1:8443/hook',
    'https://[::1]/hook',
    'https://169.254.169.254/',
  ]) {
    const res = await post({ channel: 'webhook', destination: target });
    t.is(res.status, 400, target);
    t.regex(res.body.error, /address; webhooks may not target it/, target);
  }
  const extra = await post({ channel: 'webhook', destination: 'https://hooks.example.com/', secret: 'x' });
  t.is(extra.status, 400, 'an unknown field is refused');
  const missing = await post({ channel: 'email' });
  t.is(missing.status, 400);
  t.is(await count(ph), 0);

  for (const path of [
    '/v1/status/subscriptions/verify/phsv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    '/v1/status/subscriptions/verify/nonsense',
    '/v1/status/subscriptions/unsubscribe/phsu_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  ]) {
    const res = await ph.request('GET', path, { key: null });
    t.is(res.status, 404, path);
    t.regex(res.body.error, /token was not found/);
  }
});

test('subscribing is rate limited per destination with 429 and Retry-After, and a repeat does not duplicate', async (t) => {
  const ph = await startPosthorn(t, { status: { subscriptions_per_hour_per_destination: 2 } });
  const post = () =>
    ph.request('POST', '/v1/status/subscriptions', {
      key: null,
      body: { channel: 'webhook', destination: 'https://hooks.example.com/status' },
    });
  const first = await post();
  t.is(first.status, 201);
  const second = await post();
  t.is(second.status, 201);
  t.is(second.body.id, first.body.id);
  t.is(await count(ph), 1, 'a repeated subscription is the same row');
  const third = await post();
  t.is(third.status, 429);
  t.regex(third.headers.get('retry-after') ?? '', /^\d+$/);
  t.regex(third.body.error, /Too many subscription requests/);
});
