/**
 * The attachment scanner against a real clamd (scripts/peers): verdicts, and how it behaves while
 * clamd is missing, silent, or comes back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { clamavHealth, createScanner, type ClamavConfig } from '../../../src/inbound/scanning/scanner.js';
import { requireClamd, type ClamdAddress } from '../../helpers/clamd.js';
import { controlledClamd } from '../../helpers/fake-clamd.js';

// The public EICAR test string, assembled here so that no file in the repository holds it whole.
const EICAR = Buffer.from(
  ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$', 'EICAR-STANDARD-ANTIVIRUS-', 'TEST-FILE!$H+H*'].join(''),
);
const LETTER = Buffer.from('Hello,\r\n\r\nPlease find the quarterly report attached.\r\n'.repeat(200));

function tcpConfig(address: ClamdAddress, timeout_ms = 5_000): ClamavConfig {
  return { host: address.host, port: address.port, socket: '', timeout_ms };
}

interface TestServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on a loopback port (0: any) or a Unix socket path; close() also drops open connections. */
function serve(on: number | string, handler?: (client: Socket) => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    handler?.(client);
  });
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const ready = (): void => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address ? address.port : 0, close });
    };
    if (typeof on === 'number') server.listen(on, '127.0.0.1', ready);
    else server.listen(on, ready);
  });
}

/** A loopback port nobody listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = await serve(0);
  await server.close();
  return server.port;
}

/** Forwards every connection on `listenOn` (a port or a Unix socket path) to the real clamd. */
function forwardToClamd(clamd: ClamdAddress, listenOn: number | string): Promise<TestServer> {
  return serve(listenOn, (client) => {
    const upstream = connect({ host: clamd.host, port: clamd.port });
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
}

test('the EICAR test string is infected and named by its signature', async (t) => {
  const scanner = createScanner(tcpConfig(await requireClamd()));
  const outcome = await scanner.scan(EICAR);
  t.is(outcome.state, 'infected');
  if (outcome.state === 'infected') t.regex(outcome.signature, /EICAR/);
});

test('an ordinary attachment is clean', async (t) => {
  const scanner = createScanner(tcpConfig(await requireClamd()));
  t.deepEqual(await scanner.scan(LETTER), { state: 'clean' });
});

test('an empty attachment is clean', async (t) => {
  const scanner = createScanner(tcpConfig(await requireClamd()));
  t.deepEqual(await scanner.scan(Buffer.alloc(0)), { state: 'clean' });
});

test('a live clamd answers ping and reports ok health', async (t) => {
  const scanner = createScanner(tcpConfig(await requireClamd()));
  t.true(await scanner.ping());
  t.is(await clamavHealth(scanner), 'ok');
  t.is((await scanner.scan(EICAR)).state, 'infected');
  t.true(await scanner.ping());
});

test('a scanner pointed at a closed port answers error quickly and pings false', async (t) => {
  const scanner = createScanner(tcpConfig({ host: '127.0.0.1', port: await closedPort() }));
  const started = Date.now();
  const outcome = await scanner.scan(EICAR);
  t.is(outcome.state, 'error');
  if (outcome.state === 'error') t.regex(outcome.reason, /ECONNREFUSED/);
  t.false(await scanner.ping());
  t.is(await clamavHealth(scanner), 'degraded');
  t.true(Date.now() - started < 1_000, `took ${Date.now() - started} ms`);
});

test('a clamd that never answers makes a scan give up within timeout_ms', async (t) => {
  // Accepts connections and never says a word: a clamd that hangs.
  const silent = await serve(0);
  t.teardown(() => silent.close());
  const scanner = createScanner(tcpConfig({ host: '127.0.0.1', port: silent.port }, 300));
  const started = Date.now();
  const outcome = await scanner.scan(EICAR);
  t.is(outcome.state, 'error');
  t.false(await scanner.ping());
  t.true(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
});

test('close() ends a scan clamd never answers at once, drops its connection, and no call connects after it', async (t) => {
  // Takes the whole stream and never answers it: a clamd that hangs mid-scan.
  const hung = await controlledClamd(undefined);
  t.teardown(() => hung.close());
  const scanner = createScanner(tcpConfig({ host: '127.0.0.1', port: hung.port }, 30_000));
  const scan = scanner.scan(LETTER);
  while (hung.scans() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const closing = Date.now();
  scanner.close();
  const outcome = await scan;
  t.true(Date.now() - closing < 500, `took ${Date.now() - closing} ms`);
  t.like(outcome, { state: 'error', reason: 'the scanner was closed (the server is stopping)' });
  while (hung.connections() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  t.true(Date.now() - closing < 1_000, 'its connection is gone');

  t.is((await scanner.scan(LETTER)).state, 'error');
  t.false(await scanner.ping());
  t.is(hung.scans(), 1, 'nothing more reached clamd');
  t.is(hung.connections(), 0);
});

test('the scanner reconnects by itself once clamd comes back', async (t) => {
  const clamd = await requireClamd();
  const port = await closedPort();
  const scanner = createScanner(tcpConfig({ host: '127.0.0.1', port }));
  t.is((await scanner.scan(EICAR)).state, 'error');
  t.false(await scanner.ping());

  const revived = await forwardToClamd(clamd, port);
  t.teardown(() => revived.close());
  t.true(await scanner.ping());
  t.is((await scanner.scan(EICAR)).state, 'infected');
  t.deepEqual(await scanner.scan(LETTER), { state: 'clean' });
});

test('a configured Unix socket is used instead of host and port', async (t) => {
  const clamd = await requireClamd();
  const dir = await mkdtemp(join(tmpdir(), 'posthorn-clamd-'));
  const socket = join(dir, 'clamd.sock');
  const proxy = await forwardToClamd(clamd, socket);
  t.teardown(async () => {
    await proxy.close();
    await rm(dir, { recursive: true, force: true });
  });
  // host/port point nowhere: only the socket can answer.
  const scanner = createScanner({ host: '127.0.0.1', port: await closedPort(), socket, timeout_ms: 5_000 });
  t.true(await scanner.ping());
  t.is((await scanner.scan(EICAR)).state, 'infected');
  t.deepEqual(await scanner.scan(LETTER), { state: 'clean' });
});
