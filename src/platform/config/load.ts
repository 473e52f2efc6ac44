/**
 * Loads config.toml, applies `POSTHORN_<SECTION>_<KEY>` environment overrides, and validates the
 * result against the one schema. Fails with every bad key's path and reason; never half-loads.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { z } from 'zod';
import { configKeys, configSections } from './shape.js';
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
      throw new ConfigError(file, [`not valid TOML: ${(error as Error).message.split('\n')[0]}`]);
    }
  }
  const overridden = applyEnvOverrides(raw, env);
  return {
    config: validateConfig(overridden, exists ? file : 'the embedded defaults'),
    file: exists ? file : null,
  };
}

export function validateConfig(raw: unknown, source: string): Config {
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(source, result.error.issues.map(describeIssue));
  return result.data;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.join('.') || '(top level)';
  if (issue.code === 'unrecognized_keys') {
    const prefix = issue.path.length ? `${issue.path.join('.')}.` : '';
    return issue.keys.map((k) => `${prefix}${k}: unknown key`).join('; ');
  }
  return `${where}: ${issue.message}`;
}

/** POSTHORN_ variables that are not configuration keys: the config file's path, bin/posthorn's Node flags. */
const LAUNCHER_VARIABLES = new Set(['POSTHORN_CONFIG', 'POSTHORN_NODE_FLAGS']);

/** Environment overrides: POSTHORN_SMTP_IN_LISTEN sets [smtp_in] listen. */
export function applyEnvOverrides(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(raw);
  const sections = configSections().sort((a, b) => b.length - a.length);
  const keys = configKeys();
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('POSTHORN_') || LAUNCHER_VARIABLES.has(name) || value === undefined) continue;
    const rest = name.slice('POSTHORN_'.length).toLowerCase();
    const section = sections.find((s) => rest.startsWith(`${s}_`));
    const info =
      section && keys.find((k) => k.section === section && k.key === rest.slice(section.length + 1));
    if (!section || !info) throw new ConfigError('the environment', [`${name}: no such configuration key`]);
    let coerced: unknown;
    try {
      coerced = coerce(value, info.kind);
    } catch (error) {
      throw new ConfigError('the environment', [
        `${name} (${section}.${info.key}): not a JSON list: ${(error as Error).message}`,
      ]);
    }
    out[section] = { ...(out[section] as Record<string, unknown> | undefined), [info.key]: coerced };
  }
  return out;
}

function coerce(value: string, kind: string): unknown {
  switch (kind) {
    case 'number':
      return value.trim() === '' ? value : Number(value);
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'array':
      if (value.trim().startsWith('[')) return JSON.parse(value) as unknown;
      return value === '' ? [] : value.split(',').map((s) => s.trim());
    default:
      return value;
  }
}
