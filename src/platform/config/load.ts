/**
 * Loads config.toml, applies `POSTHORN_<SECTION>_<KEY>` environment overrides, and validates the
 * result against the one schema. Fails with every bad key's path and reason; never half-loads.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { z } from 'zod';
import { configKeys, configSections, type KeyInfo } from './shape.js';
import { type Config, configSchema } from './schema.js';

export const DEFAULT_CONFIG_PATH = 'config/config.toml';

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(`invalid configuration in ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadedConfig {
  readonly config: Config;
  /** Absolute path of the file read, or null when running on embedded defaults. */
  readonly file: string | null;
}

/** `--config`, then `POSTHORN_CONFIG`, then config/config.toml. */
export function resolveConfigPath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return path.resolve(flag ?? env.POSTHORN_CONFIG ?? DEFAULT_CONFIG_PATH);
}

export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  let raw: Record<string, unknown> = {};
  const exists = existsSync(file);
  if (exists) {
    try {
      raw = parseToml(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(file, [`not valid TOML${tomlPlace(error)}: ${tomlReason(error)}`]);
    }
  }
  const overridden = applyEnvOverrides(raw, env);
  return {
    config: validateConfig(overridden, exists ? file : 'the embedded defaults', envVariables(env)),
    file: exists ? file : null,
  };
}

/** smol-toml's error carries the place; its message repeats it as a code excerpt, left out here. */
function tomlPlace(error: unknown): string {
  const { line, column } = error as { line?: unknown; column?: unknown };
  return typeof line === 'number' && typeof column === 'number' ? ` at line ${line}, column ${column}` : '';
}

function tomlReason(error: unknown): string {
  return ((error as Error).message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
}

/**
 * Validates raw sections. `variables` maps `section.key` to the environment variable that set it,
 * so a bad value from the environment names the variable, not only a key the file may not hold.
 */
export function validateConfig(
  raw: unknown,
  source: string,
  variables: ReadonlyMap<string, string> = new Map(),
): Config {
  const result = configSchema.safeParse(raw);
  if (!result.success)
    throw new ConfigError(
      source,
      result.error.issues.map((issue) => describeIssue(issue, variables)),
    );
  return result.data;
}

function describeIssue(issue: z.core.$ZodIssue, variables: ReadonlyMap<string, string>): string {
  const where = issue.path.join('.') || '(top level)';
  if (issue.code === 'unrecognized_keys') {
    const prefix = issue.path.length ? `${issue.path.join('.')}.` : '';
    return issue.keys.map((k) => `${prefix}${k}: unknown key`).join('; ');
  }
  const variable = variables.get(issue.path.slice(0, 2).join('.'));
  return `${where}: ${issue.message}${variable ? ` (set by ${variable})` : ''}`;
}

/** `section.key` → the POSTHORN_ variable that overrides it (applyEnvOverrides has checked them). */
function envVariables(env: NodeJS.ProcessEnv): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    const key = value === undefined ? undefined : envKey(name);
    if (key) out.set(`${key.section}.${key.key}`, name);
  }
  return out;
}

/** POSTHORN_ variables that are not configuration keys: the config file's path, bin/posthorn's Node flags. */
const LAUNCHER_VARIABLES = new Set(['POSTHORN_CONFIG', 'POSTHORN_NODE_FLAGS']);

/** Environment overrides: POSTHORN_SMTP_IN_LISTEN sets [smtp_in] listen. */
export function applyEnvOverrides(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(raw);
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('POSTHORN_') || LAUNCHER_VARIABLES.has(name) || value === undefined) continue;
    const info = envKey(name);
    if (!info) throw new ConfigError('the environment', [`${name}: no such configuration key`]);
    let coerced: unknown;
    try {
      coerced = coerce(value, info.kind);
    } catch (error) {
      throw new ConfigError('the environment', [
        `${name} (${info.section}.${info.key}): ${(error as Error).message}`,
      ]);
    }
    out[info.section] = {
      ...(out[info.section] as Record<string, unknown> | undefined),
      [info.key]: coerced,
    };
  }
  return out;
}

/** The key a POSTHORN_<SECTION>_<KEY> variable sets, if it names one. */
function envKey(name: string): KeyInfo | undefined {
  if (!name.startsWith('POSTHORN_') || LAUNCHER_VARIABLES.has(name)) return undefined;
  const rest = name.slice('POSTHORN_'.length).toLowerCase();
  const section = configSections()
    .sort((a, b) => b.length - a.length)
    .find((s) => rest.startsWith(`${s}_`));
  return section
    ? configKeys().find((k) => k.section === section && k.key === rest.slice(section.length + 1))
    : undefined;
}

function coerce(value: string, kind: string): unknown {
  switch (kind) {
    case 'number':
      // Number('abc') is NaN, which the schema reported as "expected number, received NaN".
      if (value.trim() === '' || Number.isNaN(Number(value)))
        throw new Error(`must be a number, not ${JSON.stringify(value)}`);
      return Number(value);
    case 'boolean':
      if (value !== 'true' && value !== 'false')
        throw new Error(`must be true or false, not ${JSON.stringify(value)}`);
      return value === 'true';
    case 'array':
      if (value.trim().startsWith('[')) {
        try {
          return JSON.parse(value) as unknown;
        } catch (error) {
          throw new Error(`not a JSON list: ${(error as Error).message}`);
        }
      }
      return value === '' ? [] : value.split(',').map((s) => s.trim());
    default:
      return value;
  }
}
