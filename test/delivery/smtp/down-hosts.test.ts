import test from 'ava';
import { DownHosts } from '../../../src/delivery/smtp/down-hosts.js';
import type { TlsMode } from '../../../src/delivery/smtp/mx-connection.js';
import { outcomeOfError } from '../../../src/delivery/replies/outcome.js';

const LEVELS: readonly TlsMode[] = ['opportunistic', 'require', 'verify', 'none'];

const cases: readonly {
  readonly failure: string;
  readonly error: { code: string; originalCode?: string; message: string };
  readonly at: TlsMode;
  readonly skipped: readonly TlsMode[];
}[] = [
  {
    failure: 'a refused connection',
    error: { code: 'ESOCKET', originalCode: 'ECONNREFUSED', message: 'refused' },
    at: 'verify',
    skipped: LEVELS,
  },
  {
    failure: 'a connect timeout',
    error: { code: 'ETIMEDOUT', message: 'timeout' },
    at: 'opportunistic',
    skipped: LEVELS,
  },
  {
    failure: 'a hang-up before the greeting',
    error: { code: 'ECONNECTION', message: 'closed' },
    at: 'require',
    skipped: LEVELS,
  },
  {
    failure: 'a certificate not valid for the MX name',
    error: { code: 'ETLS', message: "does not match certificate's altnames" },
    at: 'verify',
    skipped: ['verify'],
  },
  {
    failure: 'an expired certificate (reported by the socket)',
    error: { code: 'ESOCKET', originalCode: 'CERT_HAS_EXPIRED', message: 'expired' },
    at: 'verify',
    skipped: ['verify'],
  },
  {
    failure: 'a failed TLS handshake',
    error: { code: 'ETLS', message: 'handshake failure' },
    at: 'require',
    skipped: ['require'],
  },
];

for (const c of cases) {
  const where = c.skipped === LEVELS ? 'at every TLS level' : `at ${c.skipped.join(', ')} only`;
  test(`after ${c.failure} under ${c.at} the host is skipped ${where}`, (t) => {
    const down = new DownHosts();
    const error = Object.assign(new Error(c.error.message), c.error);
    down.mark('mx.shared.example', c.at, error, outcomeOfError(error));
    for (const level of LEVELS) {
      t.is(down.outcomeFor('mx.shared.example', level) !== undefined, c.skipped.includes(level), level);
    }
    t.is(down.outcomeFor('mx.other.example', c.at), undefined, 'other hosts are not affected');
  });
}

test('a host is tried again once its time is up, and the skip carries the failure that caused it', async (t) => {
  // 500 ms, read once: with 30 ms a loaded host let the window pass between two reads.
  const down = new DownHosts(500);
  const error = Object.assign(new Error("does not match certificate's altnames"), { code: 'ETLS' });
  down.mark('mx.shared.example', 'verify', error, outcomeOfError(error));
  const skip = down.outcomeFor('mx.shared.example', 'verify');
  t.like(skip, { kind: 'deferred', class: { category: 'tls' } });
  t.regex(skip?.reply.text ?? '', /altnames/);
  await new Promise((resolve) => setTimeout(resolve, 600));
  t.is(down.outcomeFor('mx.shared.example', 'verify'), undefined);
});
