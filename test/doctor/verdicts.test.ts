import test from 'ava';
import { signatureAgeDays } from '../../src/doctor/clamav.js';
import { parseTimeServer } from '../../src/doctor/clock.js';
import { diskVerdict } from '../../src/doctor/disk.js';
import { exitCode, type Finding } from '../../src/doctor/finding.js';
import { reverseName } from '../../src/doctor/reverse-name.js';

const GIB = 1024 ** 3;

test('disk space fails under 512 MiB or 5 %, warns under 2 GiB or 10 %', (t) => {
  for (const [free, total, verdict] of [
    [100 * GIB, 200 * GIB, 'ok'],
    [0.4 * GIB, 200 * GIB, 'fail'],
    [8 * GIB, 200 * GIB, 'fail'],
    [1.5 * GIB, 4 * GIB, 'warn'],
    [15 * GIB, 200 * GIB, 'warn'],
    [3 * GIB, 10 * GIB, 'ok'],
  ] as const)
    t.is(diskVerdict({ free, total }), verdict, `${free / GIB} of ${total / GIB} GiB`);
});

test('reverse names, time servers and signature dates are read as their RFCs and clamd write them', (t) => {
  t.is(reverseName('192.0.2.5'), '5.2.0.192.in-addr.arpa');
  t.is(
    reverseName('2001:db8::cb01'),
    '1.0.b.c.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
  );
  t.is(reverseName('2001:DB8:0:0:0:0:0:CB01'), reverseName('2001:db8::cb01'));
  t.deepEqual(parseTimeServer('pool.ntp.org'), { host: 'pool.ntp.org', port: 123 });
  t.deepEqual(parseTimeServer('127.0.0.1:1230'), { host: '127.0.0.1', port: 1230 });
  t.deepEqual(parseTimeServer('[2001:db8::1]:1230'), { host: '2001:db8::1', port: 1230 });
  t.deepEqual(parseTimeServer('2001:db8::1'), { host: '2001:db8::1', port: 123 });
  const now = Date.parse('2026-11-27T12:00:00Z');
  t.is(signatureAgeDays('ClamAV 1.4.3/27470/Mon Nov 23 09:30:00 2026', now), 4);
  t.is(signatureAgeDays('ClamAV 1.4.6', now), undefined);
});

test('doctor exits 1 on a failure, and on a warning only with --strict', (t) => {
  const of = (...statuses: Finding['status'][]) =>
    statuses.map((status) => ({ check: 'x', status, message: 'm' }) as Finding);
  t.is(exitCode(of('ok', 'ok'), false), 0);
  t.is(exitCode(of('ok', 'warn'), false), 0);
  t.is(exitCode(of('ok', 'warn'), true), 1);
  t.is(exitCode(of('fail', 'warn'), false), 1);
});
