/**
 * What CLI commands share: resolving and loading the config (a ConfigError becomes exit 2 in
 * main), refusing to open a store without a config file, and opening the store with every service
 * for the `admin` commands.
 */
import path from 'node:path';
import {
  DEFAULT_CONFIG_PATH,
  type LoadedConfig,
  loadConfig,
  resolveConfigPath,
} from '../platform/config/load.js';
import type { Kernel } from '../kernel.js';
import type { Config } from '../platform/config/schema.js';
import { openConfiguredStore } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { createLogger } from '../platform/log.js';
import { bootMasterKey } from '../master-key-boot.js';
import { buildServices, type Services } from '../services.js';
import { stringOption, UsageError, type Values } from './command.js';

export function loadFor(values: Values): LoadedConfig & { path: string } {
  const path = resolveConfigPath(stringOption(values, 'config'), process.env);
  return { ...loadConfig(path, process.env), path };
}

/**
 * Whether the config file was named (`--config` or `POSTHORN_CONFIG`) rather than the default
 * path. Only the default path may be missing: `serve` writes it on the first start.
 */
export function configNamed(values: Values): boolean {
  const named = stringOption(values, 'config') ?? process.env.POSTHORN_CONFIG;
  return named !== undefined && path.resolve(named) !== path.resolve(DEFAULT_CONFIG_PATH);
}

export function missingConfigError(file: string): UsageError {
  return new UsageError(
    `Config file ${file} does not exist. Run \`posthorn init --config ${file}\` to write one.`,
  );
}

/**
 * The config `config check` and `config print` show: the embedded defaults when the default file
 * is missing (what the first `serve` writes), an error when a named one is (what `serve` does, so
 * the unit's `ExecStartPre=posthorn config check` stops there too).
 */
export function loadShownConfig(values: Values): LoadedConfig & { path: string } {
  const loaded = loadFor(values);
  if (loaded.file === null && configNamed(values)) throw missingConfigError(loaded.path);
  return loaded;
}

export interface AdminContext {
  readonly kernel: Kernel;
  readonly services: Services;
  close(): Promise<void>;
}

/**
 * The config of a command that opens the store (`admin`, `queue`, `migrate`). Without a config
 * file it refuses rather than run on the embedded defaults: on a systemd install (config in
 * /etc/posthorn) that would silently create a second, empty database under ./data wherever the
 * command was run.
 */
export function loadExistingConfig(values: Values): LoadedConfig {
  const named = stringOption(values, 'config') ?? process.env.POSTHORN_CONFIG;
  const loaded = loadFor(values);
  if (loaded.file !== null) return loaded;
  if (named !== undefined) throw missingConfigError(loaded.path);
  throw new UsageError(
    `No config file at ${loaded.path} and neither --config nor POSTHORN_CONFIG names one, so this would ` +
      'create a new, empty database under ./data here. Run it where `posthorn serve` wrote config/config.toml, ' +
      'or name the config (on a systemd install: sudo -u posthorn POSTHORN_CONFIG=/etc/posthorn/config.toml ' +
      '/opt/posthorn/bin/posthorn admin ...); `posthorn init` writes a new one here.',
  );
}

/** Opens the store (migrating it first) for a one-shot command. Logs only warnings, to stderr. */
export async function openAdmin(values: Values): Promise<AdminContext> {
  return openAdminWith(loadExistingConfig(values).config);
}

/** `openAdmin` for a config already loaded. */
export async function openAdminWith(config: Config): Promise<AdminContext> {
  const log = createLogger(config.log.level === 'silent' ? 'silent' : 'warn', process.stderr);
  const store = openConfiguredStore(config.storage);
  let master: Awaited<ReturnType<typeof bootMasterKey>>;
  try {
    await migrateToLatest(store.db, {
      onWarning: (name, message) => log.warn({ migration: name }, `migration ${name}: ${message}`),
    });
    master = await bootMasterKey(config, store.db);
  } catch (error) {
    await store.close();
    throw error;
  }
  const kernel: Kernel = { config, log, store, db: store.db, masterKey: master.key };
  const services = buildServices(kernel);
  return {
    kernel,
    services,
    async close() {
      await services.keys.flushLastUsed();
      await store.close();
    },
  };
}

export async function withAdmin<T>(values: Values, body: (ctx: AdminContext) => Promise<T>): Promise<T> {
  const ctx = await openAdmin(values);
  try {
    return await body(ctx);
  } finally {
    await ctx.close();
  }
}
