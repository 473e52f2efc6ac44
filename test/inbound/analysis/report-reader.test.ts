/**
 * The DSN/ARF report reader: reads real reports part by part, and its work stays bounded whatever
 * is sent to a bounce or complaint address (a 25 MB message of one-line header fields or of empty
 * MIME parts once exhausted the heap and crash-looped the server).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { childrenOf, MAX_REPORT_BYTES, parseEntity } from '../../../src/inbound/analysis/mime.js';
import { readReports } from '../../../src/inbound/analysis/reports.js';

const dsn = (blocks: string, before = '') =>
  Buffer.from(
    `${before}From: MAILER-DAEMON@mx.example.net\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n` +
      'preamble\r\n--B\r\nContent-Type: text/plain\r\n\r\nIt failed.\r\n' +
      `--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.net\r\n\r\n${blocks}\r\n` +
      '--B\r\nContent-Type: text/rfc822-headers\r\n\r\nMessage-ID: <msg_1@acme.example>\r\n--B--\r\nepilogue\r\n',
    'latin1',
  );

const block = 'Final-Recipient: rfc822; bob@example.net\r\nAction: failed\r\nStatus: 5.1.1\r\n';

test('a DSN is read block by block, with the returned Message-ID', (t) => {
  const reports = readReports(dsn(block));
  t.is(reports.arf, null);
  t.is(reports.dsn?.reportingMta, 'mx.example.net');
  t.is(reports.dsn?.originalMessageId, 'msg_1@acme.example');
  t.like(reports.dsn?.recipients[0], {
    finalRecipient: 'bob@example.net',
    action: 'failed',
    status: '5.1.1',
  });
});

test('multipart parts end at their delimiter lines only; an unterminated last part is kept', (t) => {
  const entity = parseEntity(
    Buffer.from(
      'Content-Type: multipart/mixed; boundary="b"\r\n\r\npre\r\n--b\r\n\r\none\r\n--bb\r\nstill one\r\n--b \r\n\r\ntwo\r\n--b\r\n\r\nthree (cut off',
      'latin1',
    ),
  );
  t.deepEqual(
    childrenOf(entity).map((part) => part.body.toString('latin1')),
    ['one\r\n--bb\r\nstill one', 'two', 'three (cut off'],
  );
});

test('only the first MB of a message is looked at for a report', (t) => {
  const padding = `X-Padding: ${'x'.repeat(70)}\r\n`.repeat(Math.ceil(MAX_REPORT_BYTES / 80) + 10);
  t.not(readReports(dsn(block)).dsn, null);
  t.deepEqual(readReports(dsn(block, padding)), { dsn: null, arf: null });
});

test('a DSN with thousands of recipient blocks is read up to a cap', (t) => {
  const reports = readReports(dsn(Array.from({ length: 5000 }, () => block).join('\r\n')));
  const count = reports.dsn?.recipients.length ?? 0;
  t.true(count > 0 && count <= 1000, `${count} blocks`);
});

// Each shape of hostile input is read in a child process whose heap is far smaller than the
// input: without the caps it dies of heap exhaustion.
const shapes: Record<string, string> = {
  'one-line header fields': `Buffer.from('From: a@b\\r\\n' + 'a:b\\r\\n'.repeat(2_400_000) + '\\r\\nbody\\r\\n', 'latin1')`,
  'empty MIME parts': `Buffer.from('Content-Type: multipart/mixed; boundary="b"\\r\\n\\r\\n' + '--b\\r\\n\\r\\n'.repeat(1_800_000) + '--b--\\r\\n', 'latin1')`,
  'report blocks': `Buffer.from('Content-Type: multipart/report; report-type=delivery-status; boundary="b"\\r\\n\\r\\n--b\\r\\nContent-Type: message/delivery-status\\r\\n\\r\\n' + 'Final-Recipient: rfc822; a@b\\r\\nAction: delayed\\r\\n\\r\\n'.repeat(250_000) + '--b--\\r\\n', 'latin1')`,
};

for (const [name, build] of Object.entries(shapes)) {
  test(`12 MB of ${name} are read within a 40 MB heap`, (t) => {
    const reports = fileURLToPath(new URL('../../../src/inbound/analysis/reports.js', import.meta.url));
    const script = `import { readReports } from ${JSON.stringify(reports)};
      const raw = ${build};
      const started = performance.now();
      readReports(raw);
      console.log(JSON.stringify({ bytes: raw.length, ms: Math.round(performance.now() - started) }));`;
    const child = spawnSync(
      process.execPath,
      ['--max-old-space-size=40', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 30_000 },
    );
    t.is(child.status, 0, child.stderr.slice(0, 500));
    const result = JSON.parse(child.stdout) as { bytes: number; ms: number };
    t.true(result.bytes > 11_000_000);
    t.log(`${result.bytes} bytes read in ${result.ms} ms`);
  });
}
