import test from 'ava';
import { createSendLimits } from '../../src/emails/limits.js';

const HOUR = 3_600_000;
/** The start of an hour (and so of a minute and, as it happens, not of a day). */
const hour = 1_800_000_000_000 - (1_800_000_000_000 % HOUR);

const limitsOf = (perKey: number, perRecipient: number, daily = 0) =>
  createSendLimits(
    {
      max_body_bytes: 1_000_000,
      sends_per_minute_per_key: perKey,
      sends_per_hour_per_recipient: perRecipient,
      daily_quota: daily,
      login_attempts_per_hour: 10,
    },
    async () => 0,
  );

const send = (keyId: string, to: string, mode: 'live' | 'test' = 'live') => ({
  projectId: 'p',
  keyId,
  mode,
  recipients: [to],
});

test('a reservation released after the hour rolled over leaves the new hour’s counts alone', (t) => {
  const limits = limitsOf(10, 2);
  const stale = limits.reserve(send('k1', 'a@x.com'), hour + HOUR - 10);
  const now = hour + HOUR + 5;
  limits.reserve(send('k2', 'v@x.com'), now);
  limits.reserve(send('k2', 'v@x.com'), now);
  stale.release();
  t.throws(() => limits.reserve(send('k2', 'v@x.com'), now + 1), {
    message: /v@x.com already received 2 messages/,
  });
});

test('a reservation released after the minute rolled over leaves the new minute’s key count alone', (t) => {
  const limits = limitsOf(2, 0);
  const stale = limits.reserve(send('k', 'a@x.com'), hour + 59_990);
  const now = hour + 60_005;
  limits.reserve(send('k', 'b@x.com'), now);
  limits.reserve(send('k', 'c@x.com'), now);
  stale.release();
  t.throws(() => limits.reserve(send('k', 'd@x.com'), now + 1), { message: /limited to 2 sends per minute/ });
});

test('a reservation released within its window gives its slots back, once', (t) => {
  const limits = limitsOf(2, 1, 5);
  const first = limits.reserve(send('k', 'v@x.com'), hour + 10);
  t.throws(() => limits.reserve(send('k', 'v@x.com'), hour + 20), { message: /v@x.com already received/ });
  first.release();
  first.release();
  limits.reserve(send('k', 'v@x.com'), hour + 30);
  limits.reserve(send('k', 'w@x.com'), hour + 40);
  t.throws(() => limits.reserve(send('k', 'z@x.com'), hour + 50), { message: /2 sends per minute/ });
});

test('a release after the minute rolled over still gives back its recipient slot in the same hour', (t) => {
  const limits = limitsOf(10, 1);
  const stale = limits.reserve(send('k', 'v@x.com'), hour + 59_990);
  limits.reserve(send('k', 'w@x.com'), hour + 60_005);
  stale.release();
  t.notThrows(() => limits.reserve(send('k', 'v@x.com'), hour + 60_010));
  t.throws(() => limits.reserve(send('k', 'w@x.com'), hour + 60_020), {
    message: /w@x.com already received/,
  });
});

test('test sends neither use nor meet the daily quota; live sends still fill it', (t) => {
  const limits = limitsOf(0, 0, 2);
  for (let i = 0; i < 5; i++) limits.reserve(send('test-key', `t${i}@x.com`, 'test'), hour + i);
  limits.reserve(send('live-key', 'a@x.com'), hour + 10);
  limits.reserve(send('live-key', 'b@x.com'), hour + 11);
  t.throws(() => limits.reserve(send('live-key', 'c@x.com'), hour + 12), { message: /daily quota of 2/ });
  t.notThrows(() => limits.reserve(send('test-key', 'd@x.com', 'test'), hour + 13));
});
