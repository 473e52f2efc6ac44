/**
 * The data disk filling up, bounded (the full run is `scripts/chaos disk`): a clear 503 while
 * full, nothing accepted lost, and the same process accepting again once there is room.
 */
import test from 'ava';
import { formatDiskSummary, runDiskFull } from './disk/disk-full.js';

test('a full data disk refuses sends with 503, loses nothing accepted, and the same process resumes when space returns', async (t) => {
  t.timeout(300_000);
  const summary = await runDiskFull({
    cycles: 2,
    sendsPerPhase: 20,
    diskBytes: 48 * 1024 * 1024,
    drainTimeoutMs: 90_000,
    log: (line) => t.log(line),
  });
  t.log(formatDiskSummary(summary));
  t.is(summary.cycles, 2);
  t.true(summary.refused503 > 0, 'some sends met the full disk');
  t.regex(summary.refusalText, /no disk space left; nothing was stored/);
  t.deepEqual(summary.otherErrors, []);
  t.deepEqual(summary.lost, []);
  // Outcomes that met the full disk are held in memory and written when there is room, within
  // the jobs' leases (kept long here, as by default, so a loaded host does not expire them).
  t.is(summary.duplicated, 0, 'no message was sent twice');
  t.is(summary.restarts, 0, 'the process never crashed');
});
