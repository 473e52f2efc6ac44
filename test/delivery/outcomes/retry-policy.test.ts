import test from 'ava';
import {
  nextAttempt,
  parseRetryHint,
  retryPolicyFrom,
  scheduledDelay,
} from '../../../src/delivery/outcomes/retry-policy.js';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const acceptedAt = new Date('2030-01-01T00:00:00Z');
const policy = retryPolicyFrom({});

function after(ms: number): Date {
  return new Date(acceptedAt.getTime() + ms);
}

test('the default schedule is 1m, 5m, 15m, 30m, 1h, 2h, 4h and a 4-day maximum age', (t) => {
  t.deepEqual(policy.scheduleMs, [minute, 5 * minute, 15 * minute, 30 * minute, hour, 2 * hour, 4 * hour]);
  t.is(policy.maxAgeMs, 4 * day);
});

// [attempt that just failed, delay of the next one]
const steps: readonly [number, number][] = [
  [1, minute],
  [2, 5 * minute],
  [3, 15 * minute],
  [4, 30 * minute],
  [5, hour],
  [6, 2 * hour],
  [7, 4 * hour],
  [8, 4 * hour],
  [30, 4 * hour],
];

for (const [attempt, delay] of steps) {
  test(`after failed attempt ${attempt} the next one is ${delay / minute} minutes later`, (t) => {
    const now = after(10 * minute);
    t.deepEqual(nextAttempt(policy, { attempt, acceptedAt, now }), new Date(now.getTime() + delay));
  });
}

test('an attempt number below 1 counts as the first', (t) => {
  t.is(scheduledDelay(policy, 0), minute);
  t.is(scheduledDelay(policy, -3), minute);
});

test('a configured schedule and maximum age replace the defaults', (t) => {
  const custom = retryPolicyFrom({ retry_schedule: ['30s', '10m'], max_age: '1d' });
  t.deepEqual(custom.scheduleMs, [30_000, 10 * minute]);
  t.is(custom.maxAgeMs, day);
  t.is(scheduledDelay(custom, 5), 10 * minute);
});

test('a message at its maximum age has expired', (t) => {
  t.is(nextAttempt(policy, { attempt: 40, acceptedAt, now: after(4 * day) }), 'expired');
  t.is(nextAttempt(policy, { attempt: 40, acceptedAt, now: after(5 * day) }), 'expired');
});

test('the last attempt is placed at the maximum age rather than dropped', (t) => {
  const now = after(4 * day - hour);
  t.deepEqual(nextAttempt(policy, { attempt: 30, acceptedAt, now }), after(4 * day));
});

test('a server hint replaces the schedule step', (t) => {
  const now = after(minute);
  const replyText = '451 4.7.1 Greylisted, please try again in 300 seconds';
  t.deepEqual(
    nextAttempt(policy, { attempt: 1, acceptedAt, now, replyText }),
    new Date(now.getTime() + 5 * minute),
  );
  const shorter = '421 4.7.0 Too many connections, retry in 2 minutes';
  t.deepEqual(
    nextAttempt(policy, { attempt: 7, acceptedAt, now, replyText: shorter }),
    new Date(now.getTime() + 2 * minute),
  );
});

test('a server hint is never sooner than 30 seconds', (t) => {
  const now = after(minute);
  const replyText = '450 try again in 1 second';
  t.deepEqual(
    nextAttempt(policy, { attempt: 1, acceptedAt, now, replyText }),
    new Date(now.getTime() + 30_000),
  );
});

test('a server hint is never later than the maximum age', (t) => {
  const now = after(minute);
  const replyText = '421 retry after 200 hours';
  t.deepEqual(nextAttempt(policy, { attempt: 1, acceptedAt, now, replyText }), after(4 * day));
});

test('a reply without a hint follows the schedule', (t) => {
  const now = after(minute);
  const replyText = '421 4.7.0 Please try again later';
  t.deepEqual(
    nextAttempt(policy, { attempt: 2, acceptedAt, now, replyText }),
    new Date(now.getTime() + 5 * minute),
  );
});

// [reply text, hint in ms or null]
const hints: readonly [string, number | null][] = [
  ['retry in 5 minutes', 5 * minute],
  ['451 4.7.1 Try again in 300 seconds', 300_000],
  ['421 Please try again in 1 hour', hour],
  ['450 4.2.0 Greylisted, retry after 60s', 60_000],
  ['421 too busy, please wait 90 secs', 90_000],
  ['451 Try back in 10 mins', 10 * minute],
  ['452 Come back in 2 hrs', 2 * hour],
  ['421 4.7.0 RETRY IN 15 MIN', 15 * minute],
  ['please try again later', null],
  ['421 4.7.0 Try again later, closing connection.', null],
  ['451 4.3.0 Temporary lookup failure', null],
  ['450 mailbox busy for 5 minutes', null],
  ['451 try again. 5 minutes is our policy', null],
];

for (const [text, expected] of hints) {
  test(`the hint in ${JSON.stringify(text)} is ${expected === null ? 'none' : `${expected} ms`}`, (t) => {
    t.is(parseRetryHint(text), expected);
  });
}
