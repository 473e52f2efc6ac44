/**
 * Tables of config values: each case is raw sections and the key and reason the schema must give,
 * or null for a value that must pass.
 */
import type { ExecutionContext } from 'ava';
import { ConfigError, validateConfig } from '../../src/platform/config/load.js';

export type ConfigCase = readonly [Record<string, Record<string, unknown>>, RegExp | null];

export function checkConfigCases(t: ExecutionContext, cases: readonly ConfigCase[]): void {
  for (const [raw, expected] of cases) {
    const label = JSON.stringify(raw);
    if (expected === null) {
      t.notThrows(() => validateConfig(raw, 'test'), label);
    } else {
      const error = t.throws(() => validateConfig(raw, 'test'), { instanceOf: ConfigError }, label);
      t.regex(error?.problems.join('\n') ?? '', expected, label);
    }
  }
}
