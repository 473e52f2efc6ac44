import test from 'ava';
import { clockFindings } from '../../src/doctor/clock.js';
import { startSntpServer } from '../helpers/sntp-server.js';

test('the clock is measured against a time server: a fraction of a second is ok, seconds warn, minutes fail', async (t) => {
  for (const [offsetMs, status] of [
    [200, 'ok'],
    [-5_000, 'warn'],
    [120_000, 'fail'],
  ] as const) {
    const server = await startSntpServer({ offsetMs });
    t.teardown(() => server.stop());
    const [finding] = await clockFindings({ timeServer: server.address });
    t.is(finding?.status, status, `${offsetMs} ms: ${finding?.message}`);
    const measured = Number(/clock is (-?[\d.]+) s from/.exec(finding?.message ?? '')?.[1]);
    t.true(Math.abs(measured * 1000 - offsetMs) < 100, `${offsetMs} ms measured as ${measured} s`);
    if (status !== 'ok') t.regex(finding?.fix ?? '', /timedatectl set-ntp true|chrony/);
  }
});

test('a time server that is not synchronized itself, or that never answers, is a warning saying so', async (t) => {
  const unsynced = await startSntpServer({ unsynchronized: true });
  t.teardown(() => unsynced.stop());
  const [first] = await clockFindings({ timeServer: unsynced.address });
  t.is(first?.status, 'warn');
  t.regex(first?.message ?? '', /says its own clock is not synchronized/);

  const silent = await startSntpServer({ silent: true });
  t.teardown(() => silent.stop());
  const started = Date.now();
  const [second] = await clockFindings({ timeServer: silent.address });
  t.is(second?.status, 'warn');
  t.regex(second?.message ?? '', /could not be compared with 127\.0\.0\.1:\d+: no answer within 2000 ms/);
  t.true(Date.now() - started < 4000, 'bounded by the query timeout');
  t.is(silent.requests, 1);
});
