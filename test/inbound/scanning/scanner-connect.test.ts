/**
 * A clamd that never accepts a connection (its listen backlog full, so the connection stays in
 * SYN_SENT) must not hold the scanner's socket after close() until the connect timeout. Alone in
 * its file: it counts this process's connection attempts.
 */
import { execFileSync, spawn } from 'node:child_process';
import { connect } from 'node:net';
import test from 'ava';
import { createScanner } from '../../../src/inbound/scanning/scanner.js';

const LETTER = Buffer.from('Hello,\r\n\r\nPlease find the quarterly report attached.\r\n'.repeat(200));

/**
 * A clamd whose listen backlog is full never accepts: a connection to it stays in SYN_SENT. Node
 * always accepts, so the listener is Debian's python3, listening with a backlog of 0 and never
 * calling accept(); one connection fills its queue.
 */
async function neverAccepting(t: import('ava').ExecutionContext): Promise<number> {
  const listener = spawn(
    '/usr/bin/python3',
    [
      '-c',
      "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(120)",
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  t.teardown(() => listener.kill());
  const port = await new Promise<number>((resolve) =>
    listener.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim()))),
  );
  const filler = connect({ host: '127.0.0.1', port });
  t.teardown(() => filler.destroy());
  await new Promise((resolve) => filler.once('connect', resolve));
  return port;
}

/** Connections to `port` still waiting for the handshake (ss(8), from iproute2). */
const connecting = (port: number) =>
  execFileSync('ss', ['-Htn', 'state', 'syn-sent', 'dport', '=', `:${port}`], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '').length;

test('close() ends a connection attempt to a clamd that never accepts, without waiting for the connect timeout', async (t) => {
  const port = await neverAccepting(t);
  const scanner = createScanner({ host: '127.0.0.1', port, socket: '', timeout_ms: 30_000 });
  const scan = scanner.scan(LETTER);
  const deadline = Date.now() + 3000;
  while (connecting(port) === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(connecting(port), 1, 'the scanner is connecting');
  scanner.close();
  t.like(await scan, { state: 'error', reason: 'the scanner was closed (the server is stopping)' });
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.is(connecting(port), 0, 'its connection attempt is gone at once, not after 30 s');
});
