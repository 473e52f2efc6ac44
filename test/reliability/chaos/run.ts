/**
 * The full crash-safety run (scripts/chaos): `node dist/test/reliability/chaos/run.js [--sends N]
 * [--kills N] [--inbound N] [--seed N]`. Prints the closing summary; exits 1 when a promise broke.
 */
import { parseArgs } from 'node:util';
import { formatSummary, runChaos } from './chaos.js';

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const { values } = parseArgs({
  options: {
    sends: { type: 'string', default: '10000' },
    kills: { type: 'string', default: '60' },
    inbound: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '8' },
    seed: { type: 'string', default: String(Date.now() % 100_000) },
    'drain-timeout': { type: 'string', default: '900' },
  },
});
const summary = await runChaos({
  sends: Number(values.sends),
  kills: Number(values.kills),
  inbound: Number(values.inbound),
  concurrency: Number(values.concurrency),
  seed: Number(values.seed),
  drainTimeoutMs: Number(values['drain-timeout']) * 1000,
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`${formatSummary(summary)}\nseed ${values.seed}\n`);
const broken = [
  ...summary.lost.map((s) => `lost: ${s}`),
  ...summary.duplicatesOutsideKills.map((s) => `duplicated outside a kill: ${s}`),
  ...summary.deliveredEventsWrong,
  ...summary.webhooksMissing.map((s) => `webhook missing: ${s}`),
  ...summary.webhooksDuplicated,
  ...summary.inboundLost.map((s) => `inbound not stored (lost): ${s}`),
];
for (const line of summary.inboundStoredUnprocessed)
  process.stdout.write(`  stored without processing: ${line}\n`);
for (const line of broken.slice(0, 50)) process.stdout.write(`  ${line}\n`);
process.exit(broken.length === 0 ? 0 : 1);
