/**
 * One line of `posthorn doctor`: what was checked, its verdict and what to do. `ok` needs nothing;
 * `warn` works but will cost deliverability or lose something; `fail` must be fixed before the
 * first send. The report's exit code is 1 when any line fails (with `--strict`, also when one
 * warns), 0 otherwise; a config that cannot be read exits 2, like every command.
 */
export type Verdict = 'ok' | 'warn' | 'fail';

export interface Finding {
  /** The kind of check: `config`, `identity`, `forward-dns`, `ptr`, `spf`, `dkim`, `dmarc`, ... */
  readonly check: string;
  /** What it was about: a key, an address, a domain, a path; absent when the check is about the whole host. */
  readonly subject?: string;
  readonly status: Verdict;
  /** What was found, as a sentence. */
  readonly message: string;
  /** What to do, as an instruction; absent for `ok`. */
  readonly fix?: string;
}

export const ok = (check: string, message: string, subject?: string): Finding => ({
  check,
  status: 'ok',
  message,
  ...(subject !== undefined ? { subject } : {}),
});

export const warn = (check: string, message: string, fix: string, subject?: string): Finding => ({
  check,
  status: 'warn',
  message,
  fix,
  ...(subject !== undefined ? { subject } : {}),
});

export const fail = (check: string, message: string, fix: string, subject?: string): Finding => ({
  check,
  status: 'fail',
  message,
  fix,
  ...(subject !== undefined ? { subject } : {}),
});

/** The worst verdict: what the report as a whole says. */
export function overall(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.status === 'fail')) return 'fail';
  if (findings.some((f) => f.status === 'warn')) return 'warn';
  return 'ok';
}

export function exitCode(findings: readonly Finding[], strict: boolean): number {
  const verdict = overall(findings);
  return verdict === 'fail' || (strict && verdict === 'warn') ? 1 : 0;
}

/** Lines for a terminal: `ok    check  message`, the fix on the next line after an arrow. */
export function renderText(findings: readonly Finding[]): string[] {
  const width = Math.max(...findings.map((f) => f.check.length));
  const lines: string[] = [];
  for (const finding of findings) {
    lines.push(`${finding.status.padEnd(4)}  ${finding.check.padEnd(width)}  ${finding.message}`);
    if (finding.fix) lines.push(`${' '.repeat(width + 6)}→ ${finding.fix}`);
  }
  const count = (status: Verdict) => findings.filter((f) => f.status === status).length;
  lines.push('', `${count('fail')} failed, ${count('warn')} warned, ${count('ok')} ok.`);
  return lines;
}

export function renderJson(findings: readonly Finding[]): string {
  const count = (status: Verdict) => findings.filter((f) => f.status === status).length;
  return JSON.stringify({
    status: overall(findings),
    summary: { ok: count('ok'), warn: count('warn'), fail: count('fail') },
    checks: findings,
  });
}
