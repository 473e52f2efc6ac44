/** The full hostile-SMTP run (`scripts/chaos smtp [--sessions N]`): prints the summary; exits 1 on a problem. */
import { parseArgs } from 'node:util';
import { formatSmtpSummary, runHostileSmtp } from './hostile-smtp.js';

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const { values } = parseArgs({
  options: { sessions: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '6' } },
});
const summary = await runHostileSmtp({
  sessions: Number(values.sessions),
  concurrency: Number(values.concurrency),
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`${formatSmtpSummary(summary)}\n`);
for (const line of summary.problems.slice(0, 50)) process.stdout.write(`  ${line}\n`);
process.exit(summary.problems.length === 0 && summary.crashes === 0 ? 0 : 1);
