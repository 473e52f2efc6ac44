/**
 * The full disk-full run (`scripts/chaos disk [--cycles N] [--sends N]`): prints the summary;
 * exits 1 when a promise broke. Needs root for the tmpfs data disk.
 */
import { parseArgs } from 'node:util';
import { formatDiskSummary, runDiskFull } from './disk-full.js';

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const { values } = parseArgs({
  options: {
    cycles: { type: 'string', default: '10' },
    sends: { type: 'string', default: '200' },
    'disk-mb': { type: 'string', default: '64' },
  },
});
const summary = await runDiskFull({
  cycles: Number(values.cycles),
  sendsPerPhase: Number(values.sends),
  diskBytes: Number(values['disk-mb']) * 1024 * 1024,
  drainTimeoutMs: 600_000,
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`${formatDiskSummary(summary)}\n`);
for (const line of [...summary.lost.map((s) => `lost: ${s}`), ...summary.otherErrors].slice(0, 50))
  process.stdout.write(`  ${line}\n`);
const broken = summary.lost.length + summary.otherErrors.length + summary.restarts;
process.exit(broken === 0 && summary.refused503 > 0 ? 0 : 1);
