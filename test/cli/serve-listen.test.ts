/**
 * A port that is already taken is an operator's mistake (a second instance, another server): it is
 * said in one line naming the config key and what to do, never as a stack trace.
 */
import { createServer, type Server } from 'node:net';
import test from 'ava';
import { workdir } from '../helpers/cli.js';

async function takenPort(t: { teardown(fn: () => void): void }): Promise<number> {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => holder.close());
  const address = holder.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

test('serve whose HTTP port is taken exits 1 with one line naming server.listen and what to do', async (t) => {
  const w = workdir(t);
  const port = await takenPort(t);
  const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = w.spawn(['serve'], {
      POSTHORN_SERVER_LISTEN: `127.0.0.1:${port}`,
      POSTHORN_SMTP_IN_LISTEN: '127.0.0.1:0',
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('exit', (code) => resolve({ code, stderr }));
  });
  t.is(result.code, 1, result.stderr);
  t.true(
    result.stderr.includes(`posthorn: server.listen 127.0.0.1:${port}: the address is already in use`),
    result.stderr,
  );
  t.regex(result.stderr, /set server\.listen to a free port/);
  t.notRegex(result.stderr, /^\s+at /m, 'no stack trace');
});

test('an inbound SMTP port that is taken is said once in the log, and /health names smtp_in.listen', async (t) => {
  const w = workdir(t);
  const smtpPort = await takenPort(t);
  const httpPort = 20_000 + Math.floor(Math.random() * 20_000);
  const child = w.spawn(['serve'], {
    POSTHORN_SERVER_LISTEN: `127.0.0.1:${httpPort}`,
    POSTHORN_SMTP_IN_LISTEN: `127.0.0.1:${smtpPort}`,
    POSTHORN_LOG_LEVEL: 'info',
  });
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let detail = '';
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    const health = await fetch(`http://127.0.0.1:${httpPort}/health`).catch(() => undefined);
    const body = (await health?.json()) as { components?: { smtp_in?: { detail?: string } } } | undefined;
    detail = body?.components?.smtp_in?.detail ?? '';
    if (detail.includes('could not start')) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.true(detail.includes(`smtp_in.listen 127.0.0.1:${smtpPort}: the address is already in use`), detail);
  child.kill('SIGTERM');
  t.is(await exited, 0);
  const lines = stdout.split('\n').filter((line) => line.includes('EADDRINUSE') || line.includes('in use'));
  t.is(lines.length, 1, lines.join('\n'));
  t.regex(lines[0] ?? '', /the inbound SMTP listener could not start: smtp_in\.listen/);
  t.false(stdout.includes('inbound SMTP connection error'), 'the start failure is not a connection error');
  t.false(stdout.includes('"stack"'), 'no stack trace for a taken port');
});
