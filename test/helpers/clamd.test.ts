/**
 * `requireClamd` lets a test file run alone fail with a clear message when the clamd it finds
 * cannot scan: one started from a worktree since deleted still answers PING, but every INSTREAM
 * scan fails. The broken one here is a loopback server speaking clamd's protocol that answers as
 * such a clamd does; the whole one is the real clamd of `scripts/peers`.
 */
import { createServer, type Server } from 'node:net';
import test from 'ava';
import { requireClamd } from './clamd.js';

/** A server that answers PONG to PING and `scanReply` to INSTREAM, once the stream is over. */
async function fakeClamd(scanReply: string): Promise<Server> {
  const server = createServer((socket) => {
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.toString('latin1') === 'zPING\0') socket.end('PONG\0');
      // The last chunk of an INSTREAM is a zero length.
      else if (received.length > 14 && received.subarray(-4).equals(Buffer.alloc(4)))
        socket.end(`${scanReply}\0`);
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const withClamdPort = async <T>(port: number, run: () => Promise<T>): Promise<T> => {
  const before = process.env.CLAMD_PORT;
  process.env.CLAMD_PORT = String(port);
  try {
    return await run();
  } finally {
    if (before === undefined) delete process.env.CLAMD_PORT;
    else process.env.CLAMD_PORT = before;
  }
};

test.serial(
  'a clamd that answers PING but cannot scan fails the test that needs it, saying so',
  async (t) => {
    const broken = await fakeClamd("stream: Can't create temporary file ERROR");
    t.teardown(() => broken.close());
    const { port } = broken.address() as { port: number };
    const error = await withClamdPort(port, () => t.throwsAsync(requireClamd()));
    t.regex(
      error?.message ?? '',
      new RegExp(`clamd on 127\\.0\\.0\\.1:${port} answers PING but cannot scan`),
    );
    t.regex(error?.message ?? '', /Can't create temporary file ERROR/);
    t.regex(error?.message ?? '', /scripts\/peers/);
  },
);

test.serial('a clamd that finds nothing in EICAR is refused too', async (t) => {
  const blind = await fakeClamd('stream: OK');
  t.teardown(() => blind.close());
  const { port } = blind.address() as { port: number };
  const error = await withClamdPort(port, () => t.throwsAsync(requireClamd()));
  t.regex(error?.message ?? '', /cannot scan \(EICAR: 'stream: OK'\)/);
});

test.serial('no clamd on the port fails with how to start one', async (t) => {
  const gone = await fakeClamd('unused');
  const { port } = gone.address() as { port: number };
  await new Promise((resolve) => gone.close(resolve));
  const error = await withClamdPort(port, () => t.throwsAsync(requireClamd()));
  t.regex(error?.message ?? '', /does not answer PING .*run scripts\/peers/);
});

test.serial('the clamd of scripts/peers answers PING and finds EICAR', async (t) => {
  t.like(await requireClamd(), { host: '127.0.0.1' });
});
