import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { forbiddenReason } from '../../src/webhooks/address-policy.js';
import { afterFailure } from '../../src/webhooks/failing-streak.js';
import { nextRetryDelay, parseRetryAfter } from '../../src/webhooks/retry-schedule.js';
import { newSigningSecret, sign, signatureHeader } from '../../src/webhooks/signing.js';
import { checkEndpointUrl } from '../../src/webhooks/url-policy.js';

test('signing matches the Standard Webhooks reference vector', (t) => {
  t.is(
    sign(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    ),
    'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  );
});

test('the standardwebhooks package accepts every signature of a rotation header', (t) => {
  const [oldSecret, newSecret] = [newSigningSecret(), newSigningSecret()];
  t.regex(oldSecret, /^whsec_[A-Za-z0-9+/]{32}$/);
  const body = '{"id":"evt_1","type":"email.sent","created_at":"2025-01-01T00:00:00.000Z","data":{}}';
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'webhook-id': 'whm_1',
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader([newSecret, oldSecret], 'whm_1', timestamp, body),
  };
  t.is(headers['webhook-signature'].split(' ').length, 2);
  t.deepEqual(new Webhook(newSecret).verify(body, headers), JSON.parse(body));
  t.deepEqual(new Webhook(oldSecret).verify(body, headers), JSON.parse(body));
  t.throws(() => new Webhook(newSigningSecret()).verify(body, headers));
});

const addresses: [string, string | undefined][] = [
  ['127.0.0.1', 'loopback'],
  ['127.8.9.10', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.1', undefined],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local or metadata'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['0.0.0.0', 'this network'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['8.8.8.8', undefined],
  ['93.184.216.34', undefined],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['fd00:ec2::254', 'private'],
  ['fc00::1', 'private'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:a9fe:a9fe', 'link-local or metadata'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['2606:4700:4700::1111', undefined],
  ['::ffff:8.8.8.8', undefined],
];

for (const [address, why] of addresses) {
  test(`address policy: ${address} is ${why ?? 'allowed'}`, (t) => {
    t.is(forbiddenReason(address), why);
  });
}

test('endpoint URLs must be https unless http is allowed, carry no credentials, and avoid private literals', (t) => {
  const strict = { allowHttp: false, allowPrivate: false };
  t.is(checkEndpointUrl('https://hooks.example.com/in#frag', strict), 'https://hooks.example.com/in');
  t.throws(() => checkEndpointUrl('http://hooks.example.com/in', strict), { message: /https/ });
  t.throws(() => checkEndpointUrl('ftp://hooks.example.com/in', { ...strict, allowHttp: true }), {
    message: /http/,
  });
  t.throws(() => checkEndpointUrl('https://user:pw@hooks.example.com/', strict), { message: /password/ });
  t.throws(() => checkEndpointUrl('not a url', strict), { message: /absolute URL/ });
  t.throws(() => checkEndpointUrl('https://169.254.169.254/latest', strict), { message: /metadata/ });
  t.throws(() => checkEndpointUrl('https://[::1]/x', strict), { message: /loopback/ });
  t.is(
    checkEndpointUrl('http://127.0.0.1:9/x', { allowHttp: true, allowPrivate: true }),
    'http://127.0.0.1:9/x',
  );
});

test('the retry schedule follows the configured delays and Retry-After can only push it later', (t) => {
  const schedule = [5000, 300_000, 1_800_000];
  t.is(nextRetryDelay(1, schedule, null), 5000);
  t.is(nextRetryDelay(2, schedule, null), 300_000);
  t.is(nextRetryDelay(3, schedule, null), 1_800_000);
  t.is(nextRetryDelay(4, schedule, null), undefined);
  t.is(nextRetryDelay(1, schedule, 60_000), 60_000);
  t.is(nextRetryDelay(2, schedule, 1000), 300_000);
  t.is(nextRetryDelay(1, schedule, 10 * 86_400_000), 86_400_000);
  t.is(parseRetryAfter('120', 0), 120_000);
  t.is(parseRetryAfter(' 7 ', 0), 7000);
  const now = Date.parse('2025-01-01T00:00:00Z');
  t.is(parseRetryAfter('Wed, 01 Jan 2025 00:01:00 GMT', now), 60_000);
  t.is(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now), 0);
  t.is(parseRetryAfter('soon', now), null);
  t.is(parseRetryAfter(undefined, now), null);
});

test('a failure continues the failing streak only after a short enough gap', (t) => {
  const gap = 10_000;
  const cases: [
    string,
    { failing_since: number | null; last_failed_at: number | null },
    number,
    number,
    object,
  ][] = [
    [
      'the first failure starts a streak',
      { failing_since: null, last_failed_at: null },
      100,
      150,
      { failing_since: 100, last_failed_at: 150 },
    ],
    [
      'a failure within the gap continues it',
      { failing_since: 0, last_failed_at: 5_000 },
      15_000,
      15_100,
      { failing_since: 0, last_failed_at: 15_100 },
    ],
    [
      'a failure after a longer gap starts a new one',
      { failing_since: 0, last_failed_at: 5_000 },
      15_001,
      15_100,
      { failing_since: 15_001, last_failed_at: 15_100 },
    ],
    [
      'after a success (no streak) it starts anew',
      { failing_since: null, last_failed_at: 5_000 },
      6_000,
      6_100,
      { failing_since: 6_000, last_failed_at: 6_100 },
    ],
    [
      'a streak without a known last failure starts anew',
      { failing_since: 0, last_failed_at: null },
      6_000,
      6_100,
      { failing_since: 6_000, last_failed_at: 6_100 },
    ],
    [
      'a slow attempt finishing before a faster later one keeps the latest finish',
      { failing_since: 0, last_failed_at: 9_000 },
      1_000,
      8_000,
      { failing_since: 0, last_failed_at: 9_000 },
    ],
  ];
  for (const [title, streak, requestedAt, finishedAt, expected] of cases) {
    t.deepEqual(afterFailure(streak, requestedAt, finishedAt, gap), expected, title);
  }
});
