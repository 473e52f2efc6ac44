/**
 * Hostile inbound SMTP, bounded (the full run of 1,000 sessions is `scripts/chaos smtp`): every
 * kind of malformed session in smtp/sessions.ts against the real serve process, good sessions
 * alongside, then connection floods past the per-client and total limits. The listener answers
 * each with the right code, never crashes, stores every message it answered 250 and none it
 * refused, and its memory stays bounded.
 */
import test from 'ava';
import { formatSmtpSummary, runHostileSmtp } from './smtp/hostile-smtp.js';

test('malformed SMTP sessions and connection floods get the right replies; the listener stays up, stores what it took and nothing it refused', async (t) => {
  t.timeout(300_000);
  const summary = await runHostileSmtp({
    sessions: Number(process.env.POSTHORN_SMTP_SESSIONS ?? 120),
    concurrency: 6,
    log: (line) => t.log(line),
  });
  t.log(formatSmtpSummary(summary));
  t.deepEqual(summary.problems, []);
  t.is(summary.crashes, 0);
  t.true(summary.good > 0 && summary.accepted > summary.good, 'good and hostile messages were taken');
  t.is(summary.stored, summary.accepted);
  t.deepEqual(summary.refusedButStored, []);
  const growth = summary.peakRssMb - summary.startRssMb;
  t.true(growth < 128, `the server's RSS grew ${growth.toFixed(1)} MB over the run`);
});
