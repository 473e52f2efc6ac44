/**
 * `requireClamd` lets a test file run alone fail with a clear message when the clamd it finds
 * cannot scan: one started from a checkout since deleted still answers PING, but every INSTREAM
 * scan fails. The broken one here is a loopback server speaking clamd's protocol that answers as
 * such a clamd does; the whole one is the real clamd of `scripts/peers`.
 */
import test from 'ava';
import { requireClamd } from './clamd.js';
import { fakeClamd } from './fake-clamd.js';

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
