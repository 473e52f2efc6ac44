/**
 * A cut that comes while a message is being committed (the end of `max_session`, the end of a
 * stop's grace) lets the commit answer first: the client reads 250 and then 421, and the message
 * is kept once. A 421 in place of the 250 would make the client send the kept message again.
 * The commit's wait is bounded (`commitGraceMs`): one that outlasts it is cut off with 421, and a
 * stop waits for it one grace more, then returns and leaves it be. The idle timeout never cuts a
 * client that waits for its commit's reply.
 *
 * The real listener on loopback and a real SMTP client; the one thing held is the commit of the
 * spool file (written for real), so that the cut lands inside it every time, or a write of the
 * message (a slow disk), so that the final dot has arrived while the message is still being read.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import test, { type ExecutionContext } from 'ava';
import {
  type Accepted,
  type InboundListener,
  startListener,
} from '../../../src/inbound/listener/listener.js';
import { openSpool, type Spool } from '../../../src/inbound/listener/spool.js';
import { createLogger } from '../../../src/platform/log.js';
import { ensureSelfSignedCert } from '../../../src/platform/tls/self-signed.js';
import { testConfig } from '../../helpers/server.js';
import { openSmtp, type RawSmtp, type Reply } from '../smtp-client.js';

interface HeldListener {
  readonly listener: InboundListener;
  readonly spoolDir: string;
  readonly accepted: Accepted[];
  /** The listener's log lines at warn and above. */
  readonly logged: Array<Record<string, unknown>>;
  /** Resolves when the held step has begun (a commit: the whole message is written, the client waits). */
  readonly commitBegun: Promise<void>;
  /** Lets the held step go on. */
  release(): void;
}

async function startHeldListener(
  t: ExecutionContext,
  options: {
    maxSession?: string;
    idleTimeout?: string;
    shutdownTimeoutMs?: number;
    commitGraceMs?: number;
    /** What is held: the commit (the default) or every write of the message, as a slow disk does. */
    hold?: 'commit' | 'append';
  },
): Promise<HeldListener> {
  const dataDir = mkdtempSync(join(tmpdir(), 'posthorn-commit-cut-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = testConfig(dataDir, {
    smtp_in: {
      enabled: true,
      listen: '127.0.0.1:0',
      max_session: options.maxSession ?? '10m',
      ...(options.idleTimeout === undefined ? {} : { idle_timeout: options.idleTimeout }),
    },
  }).smtp_in;
  const spoolDir = join(dataDir, 'inbound', 'spool');
  const real = await openSpool(spoolDir);
  let begun = () => {};
  const commitBegun = new Promise<void>((resolve) => {
    begun = resolve;
  });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const spool: Spool = {
    ...real,
    async create(envelope, head) {
      const file = await real.create(envelope, head);
      if (options.hold === 'append')
        return {
          ...file,
          async append(chunk) {
            begun();
            await released;
            return file.append(chunk);
          },
        };
      return {
        ...file,
        async commit() {
          begun();
          await released;
          return file.commit();
        },
      };
    },
  };
  const certs = await ensureSelfSignedCert(join(dataDir, 'tls'), config.hostname);
  const accepted: Accepted[] = [];
  const logged: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logged.push(JSON.parse(line));
      done();
    },
  });
  const listener = await startListener({
    config,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
    ...(options.commitGraceMs === undefined ? {} : { commitGraceMs: options.commitGraceMs }),
    tls: { key: await readFile(certs.keyFile), cert: await readFile(certs.certFile) },
    log: createLogger('warn', sink),
    checkRecipient: async (address) => ({ kind: 'complaint', address }),
    spool,
    onSpooled: (transaction) => accepted.push(transaction),
  });
  t.teardown(async () => {
    release();
    await listener.close();
  });
  return { listener, spoolDir, accepted, logged, commitBegun, release };
}

/** A transaction up to the final dot, once its commit has begun; `reply` is the reply to come. */
async function sendUntilCommit(smtp: RawSmtp, held: HeldListener): Promise<{ reply: Promise<Reply> }> {
  await smtp.command('EHLO client.example');
  await smtp.command('MAIL FROM:<ann@sender.example>');
  await smtp.command('RCPT TO:<abuse@acme.example>');
  await smtp.command('DATA');
  const reply = smtp.data('Subject: Held at its commit\r\n\r\nHello.\r\n.\r\n');
  await held.commitBegun;
  return { reply };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const spooled = (held: HeldListener) => readdirSync(held.spoolDir).filter((name) => name.endsWith('.eml'));
const temporary = (held: HeldListener) => readdirSync(held.spoolDir).filter((name) => name.endsWith('.tmp'));

test('a message being committed when max_session ends is answered 250 before the 421 and kept once', async (t) => {
  const held = await startHeldListener(t, { maxSession: '1s' });
  const smtp = await openSmtp(held.listener.address().port);
  t.teardown(() => smtp.end());
  const connected = Date.now();
  const { reply } = await sendUntilCommit(smtp, held);
  // The session limit passes while the commit is held.
  await sleep(Math.max(0, connected + 1_500 - Date.now()));
  held.release();

  t.regex((await reply).text, /^250 /);
  t.regex((await smtp.next()).text, /^421 .*Session time limit/);
  await smtp.closed();
  t.is(spooled(held).length, 1);
  t.is(held.accepted.length, 1);
});

test('a message being committed when a stop’s grace ends is answered 250 before the 421 and kept once', async (t) => {
  const held = await startHeldListener(t, { shutdownTimeoutMs: 200 });
  const smtp = await openSmtp(held.listener.address().port);
  t.teardown(() => smtp.end());
  const { reply } = await sendUntilCommit(smtp, held);
  const stopped = held.listener.close();
  // The grace ends while the commit is held.
  await sleep(700);
  held.release();

  t.regex((await reply).text, /^250 /);
  t.regex((await smtp.next()).text, /^421 .*shutting down/);
  await stopped;
  await smtp.closed();
  t.is(spooled(held).length, 1);
  t.is(held.accepted.length, 1);
});

test('a message whose last write is still going when the final dot and then max_session come is answered 250 before the 421', async (t) => {
  const held = await startHeldListener(t, { maxSession: '1s', hold: 'append' });
  const smtp = await openSmtp(held.listener.address().port);
  t.teardown(() => smtp.end());
  const connected = Date.now();
  await smtp.command('EHLO client.example');
  await smtp.command('MAIL FROM:<ann@sender.example>');
  await smtp.command('RCPT TO:<abuse@acme.example>');
  await smtp.command('DATA');
  // Two parts: the write of the first is held, so the second and the final dot wait unread.
  await smtp.write('Subject: Its write is slow\r\n\r\n');
  await held.commitBegun;
  const reply = smtp.data('Hello.\r\n.\r\n');
  // The session limit passes after the final dot, while the message is still being written.
  await sleep(Math.max(300, connected + 1_500 - Date.now()));
  held.release();

  t.regex((await reply).text, /^250 /);
  t.regex((await smtp.next()).text, /^421 .*Session time limit/);
  await smtp.closed();
  t.is(spooled(held).length, 1);
  t.is(held.accepted.length, 1);
});

test('a commit that outlasts commitGraceMs is cut off with 421 once the grace is over', async (t) => {
  const held = await startHeldListener(t, { maxSession: '300ms', commitGraceMs: 500 });
  const smtp = await openSmtp(held.listener.address().port);
  t.teardown(() => smtp.end());
  const { reply } = await sendUntilCommit(smtp, held);
  const begun = Date.now();
  t.regex((await reply).text, /^421 .*Session time limit/);
  t.true(Date.now() - begun >= 400, 'the cut waited for the commit');
  await smtp.closed();
});

test('a commit that outlasts idle_timeout is answered 250 and the session goes on', async (t) => {
  const held = await startHeldListener(t, { idleTimeout: '300ms' });
  const smtp = await openSmtp(held.listener.address().port);
  t.teardown(() => smtp.end());
  const { reply } = await sendUntilCommit(smtp, held);
  // The client waits silently for the reply, three idle timeouts long.
  await sleep(1_000);
  t.false(smtp.isClosed(), 'the idle timeout did not cut the client waiting for its reply');
  held.release();

  t.regex((await reply).text, /^250 /);
  t.is((await smtp.command('NOOP')).code, 250);
  t.is(spooled(held).length, 1);
  t.is(held.accepted.length, 1);
});

test('a stop gives a commit that never answers one grace more, then returns and logs it; the client gets 421, never 250', async (t) => {
  const held = await startHeldListener(t, { shutdownTimeoutMs: 200, commitGraceMs: 500 });
  const smtp = await openSmtp(held.listener.address().port);
  t.teardown(() => smtp.end());
  const { reply } = await sendUntilCommit(smtp, held);
  const begun = Date.now();
  // The stop's grace (200 ms), the cut's wait for the commit (500 ms), one grace more (500 ms).
  const stopped = await Promise.race([
    held.listener.close().then(() => true),
    sleep(5_000).then(() => false),
  ]);
  t.true(stopped, 'the stop returned while the commit still hangs');
  t.true(Date.now() - begun >= 1_100, 'the stop waited for the commit first');
  t.regex((await reply).text, /^421 .*shutting down/);
  t.like(
    held.logged.find((line) => /commits still pending/.test(String(line.msg))),
    { pending: 1 },
  );
  // Killed now, the message is only a temporary file, removed at the next start; its client was
  // told to send it again (421), so it is not lost.
  t.deepEqual(spooled(held), []);
  t.is(temporary(held).length, 1);

  // The commit ends after the stop: the message is kept (the next start processes it), and its
  // 250 never reaches the client already told 421.
  held.release();
  await smtp.closed();
  while (spooled(held).length === 0 && Date.now() - begun < 5_000) await sleep(20);
  t.is(spooled(held).length, 1);
  t.deepEqual(temporary(held), []);
  const rest = await smtp.next().then(
    (late) => late.text,
    (error: Error) => error.message,
  );
  t.regex(rest, /unread: ""$/);
});
