/**
 * `scripts/peers status` reports every clamd it knows of (the one on CLAMD_PORT and the others this
 * checkout started, `.peers/clamav/PORT/`) before it fails for a broken one: a clamd that cannot
 * scan must not hide the state of the others. The script runs from a copy in a temporary checkout,
 * so the `.peers` it reads is the test's; the clamds are loopback servers answering as a whole one
 * or a broken one does.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { fakeClamd } from '../helpers/fake-clamd.js';

const root = path.resolve(import.meta.dirname, '../../..');
const WHOLE = 'stream: Posthorn.Test.EICAR.UNOFFICIAL FOUND';
const BROKEN = "stream: Can't create temporary file ERROR";

/** A checkout holding only the script, whose `.peers` says it started clamds on `started`. */
function checkout(t: ExecutionContext, started: readonly number[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-peers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(root, 'scripts/peers'), path.join(dir, 'scripts/peers'));
  for (const port of started) mkdirSync(path.join(dir, '.peers/clamav', String(port)), { recursive: true });
  return dir;
}

/** A clamd on a free port answering `scanReply` to a scan; `undefined` leaves the port closed. */
async function clamd(t: ExecutionContext, scanReply: string | undefined): Promise<number> {
  const server = await fakeClamd(scanReply ?? '');
  const { port } = server.address() as AddressInfo;
  if (scanReply === undefined) await new Promise((resolve) => server.close(resolve));
  else t.teardown(() => server.close());
  return port;
}

function status(dir: string, clamdPort: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, CLAMD_PORT: String(clamdPort) };
    execFile('bash', [path.join(dir, 'scripts/peers'), 'status'], { env }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

test('status reports every clamd before failing for the one on CLAMD_PORT that cannot scan', async (t) => {
  const broken = await clamd(t, BROKEN);
  const whole = await clamd(t, WHOLE);
  const stopped = await clamd(t, undefined);
  const result = await status(checkout(t, [broken, whole, stopped]), broken);
  t.is(result.code, 1);
  t.regex(result.stderr, new RegExp(`clamd on 127\\.0\\.0\\.1:${broken} answers PING but cannot scan`));
  t.regex(result.stdout, new RegExp(`clamd answers and scans on 127\\.0\\.0\\.1:${whole}\\b`));
  t.regex(result.stdout, new RegExp(`clamd on 127\\.0\\.0\\.1:${stopped} is stopped`));
});

test('status fails for another clamd of this checkout that cannot scan, though the one on CLAMD_PORT scans', async (t) => {
  const whole = await clamd(t, WHOLE);
  const broken = await clamd(t, BROKEN);
  const result = await status(checkout(t, [whole, broken]), whole);
  t.is(result.code, 1);
  t.regex(result.stdout, new RegExp(`clamd answers and scans on 127\\.0\\.0\\.1:${whole}\\b`));
  t.regex(result.stderr, new RegExp(`clamd on 127\\.0\\.0\\.1:${broken} answers PING but cannot scan`));
});

test('status succeeds when every running clamd scans; one stopped since is only reported', async (t) => {
  const whole = await clamd(t, WHOLE);
  const stopped = await clamd(t, undefined);
  const result = await status(checkout(t, [whole, stopped]), whole);
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, new RegExp(`clamd answers and scans on 127\\.0\\.0\\.1:${whole}\\b`));
  t.regex(result.stdout, new RegExp(`clamd on 127\\.0\\.0\\.1:${stopped} is stopped`));
});

test('status fails when nothing answers on CLAMD_PORT', async (t) => {
  const closed = await clamd(t, undefined);
  const result = await status(checkout(t, []), closed);
  t.is(result.code, 1);
  t.regex(result.stderr, new RegExp(`clamd does not answer on 127\\.0\\.0\\.1:${closed}`));
});
