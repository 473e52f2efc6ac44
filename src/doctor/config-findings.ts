/**
 * The config as `serve` would take it: the files and addresses it names on this host
 * (host-checks.ts), the stop time, and whether the names and addresses it tells the world are
 * public (public-identity.ts). A config the schema refuses never gets here: the command reports
 * it and exits 2.
 */
import { checkHost } from '../platform/config/host-checks.js';
import { ConfigError } from '../platform/config/load.js';
import { identityIssues } from '../platform/config/public-identity.js';
import type { Config } from '../platform/config/schema.js';
import { stopTimeWarning } from '../stop-time.js';
import { type Finding, fail, ok, warn } from './finding.js';

export async function configFindings(config: Config, source: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  try {
    await checkHost(config, source);
    findings.push(ok('config', `The configuration is valid (${source}).`, source));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems)
      findings.push(
        fail('config', `${problem}.`, 'fix the key named, then run posthorn config check', source),
      );
  }
  const stop = stopTimeWarning(config);
  if (stop) findings.push(warn('config', stop, 'lower the timeouts it names', source));
  for (const issue of identityIssues(config)) {
    const sentence = `${issue.problem}.`;
    const subject = issue.keys[0];
    findings.push(
      issue.level === 'required'
        ? fail('identity', sentence, issue.fix, subject)
        : warn('identity', sentence, issue.fix, subject),
    );
  }
  return findings;
}
