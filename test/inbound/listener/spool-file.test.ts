/**
 * A spool file carries its final name only once it is durable. The directory fsync after the
 * rename is what makes the name durable; when it fails the commit fails (the listener answers 451
 * and the client keeps the message), and nothing may be left under either name, or the message
 * the client was told to send again would also be processed at the next start. That fsync is the
 * one thing faked here: a real one cannot be made to fail on this machine.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createSpoolFile } from '../../../src/inbound/listener/spool-file.js';

function spoolDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'posthorn-spool-file-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const first = [Buffer.from('{"id":"rcv_1"}\n'), Buffer.from('Received: from client.example\r\n')];
const message = Buffer.from('Subject: Hello\r\n\r\nHi.\r\n');

test('a committed spool file holds the envelope line, the head and the message under its final name', async (t) => {
  const dir = spoolDir(t);
  const final = join(dir, 'rcv_1.eml');
  const file = await createSpoolFile(`${final}.tmp`, final, first, async () => undefined);
  await file.append(message);
  t.is(await file.commit(), (first[1] as Buffer).length + message.length);
  t.deepEqual(readdirSync(dir), ['rcv_1.eml']);
  t.deepEqual(readFileSync(final), Buffer.concat([...first, message]));
});

test('a commit whose directory fsync fails leaves neither the temporary nor the final file', async (t) => {
  const dir = spoolDir(t);
  const final = join(dir, 'rcv_1.eml');
  const failingSync = async () => {
    throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
  };
  const file = await createSpoolFile(`${final}.tmp`, final, first, failingSync);
  await file.append(message);
  await t.throwsAsync(file.commit(), { message: /EIO/ });
  // What the listener does after a failed commit (spool-data.ts).
  await file.discard();
  t.deepEqual(readdirSync(dir), []);
});
